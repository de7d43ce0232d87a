"""Numbers into findings: capacity curves and thresholds, fits and competing laws, the constructions' noise terms
and minimal constants, the softmax analysis, the lower bound's counting, and figures."""
