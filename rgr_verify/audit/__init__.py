"""The audit's outputs: the report (JSON and Markdown), the site, the paper's text and its coverage map, and the
mutation test of the claims."""
