"""Database tensors of "Paying Attention to Facts" (arXiv 2502.05076, summary only): ranks, bounds, certificates.

A database is a set of (key, query, value) triples; its 3-tensor ``D[k, q, v]`` is 1 when the triple is stored
and 0 otherwise (``[|K|, |Q|, |V|]``). The paper measures a database by the tensor rank of D and bounds it by
its slices (Proposition 2.1: rank(D) <= min(sum_k |V_k|, sum_q |V_q|) <= |D|).

Tensor rank is NP-hard to compute, so nothing here returns "the rank". What it offers:

- **certified upper bounds**: explicit CP decompositions (:func:`slice_decomposition`) checked exactly in
  integer arithmetic (:func:`is_decomposition`);
- **certified lower bounds**: the rank of each flattening, computed exactly over GF(p) (:func:`modular_rank`);
  for an integer matrix rank over GF(p) <= rank over Q, so it is a lower bound of the tensor rank;
- :func:`rank_bounds`, the two together; when they meet, the rank is certified;
- the 2x2x2 case and argmax/softmax rank inflation live in :mod:`rgr_verify.models.facts_inflation`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..basics.checks import check_choice, check_int, check_real

__all__ = [
    "Database",
    "database_from_triples",
    "permutation_database",
    "permutation_array",
    "graph_database",
    "random_functional_database",
    "distinct_value_database",
    "single_value_diagonal_database",
    "flattenings",
    "modular_rank",
    "flattening_lower_bound",
    "prop21_bounds",
    "slice_decomposition",
    "cp_tensor",
    "is_decomposition",
    "RankBounds",
    "rank_bounds",
    "rank_one_span_decomposition",
    "example_facts_database",
    "BORN_LIVES_CURRENCY",
    "MODULUS",
]

MODULUS = 2_147_483_647  # the prime 2^31 - 1: products of two residues fit in int64


@dataclass(frozen=True, eq=False)
class Database:
    """A database of (key, query, value) triples.

    Attributes:
        triples: int64 array ``[n, 3]`` of distinct (key, query, value) ids, sorted lexicographically.
        n_keys, n_queries, n_values: the sizes |K|, |Q|, |V| (ids lie in ``[0, size)``).
    """

    triples: np.ndarray
    n_keys: int
    n_queries: int
    n_values: int

    def __post_init__(self):
        for name in ("n_keys", "n_queries", "n_values"):
            check_int(name, getattr(self, name), min_value=1)
        arr = np.asarray(self.triples)
        if arr.size == 0:
            arr = np.zeros((0, 3), dtype=np.int64)
        if arr.ndim != 2 or arr.shape[1] != 3 or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"triples must be an integer array of shape [n, 3], got shape {arr.shape}, dtype {arr.dtype}")
        arr = arr.astype(np.int64)
        for col, (name, size) in enumerate((("key", self.n_keys), ("query", self.n_queries), ("value", self.n_values))):
            if arr.size and (arr[:, col].min() < 0 or arr[:, col].max() >= size):
                raise ValueError(f"triples: {name} ids must lie in [0, {size - 1}]")
        uniq = np.unique(arr, axis=0)
        if len(uniq) != len(arr):
            raise ValueError("triples must be distinct")
        uniq.setflags(write=False)
        object.__setattr__(self, "triples", uniq)

    @property
    def size(self) -> int:
        """|D|, the number of triples."""
        return int(len(self.triples))

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.n_keys, self.n_queries, self.n_values)

    def tensor(self) -> np.ndarray:
        """The database tensor ``D``: int64 ``[|K|, |Q|, |V|]``, 1 on stored triples, 0 elsewhere."""
        D = np.zeros(self.shape, dtype=np.int64)
        D[self.triples[:, 0], self.triples[:, 1], self.triples[:, 2]] = 1
        return D

    def fibres(self) -> dict[tuple[int, int], frozenset]:
        """The queried fibres: {(key, query): the set of valid values}."""
        out: dict[tuple[int, int], set] = {}
        for k, q, v in self.triples.tolist():
            out.setdefault((k, q), set()).add(v)
        return {kq: frozenset(vs) for kq, vs in out.items()}


def database_from_triples(triples, *, n_keys: int | None = None, n_queries: int | None = None,
                          n_values: int | None = None) -> Database:
    """A :class:`Database` from an iterable of (key, query, value) triples; sizes default to max id + 1."""
    arr = np.asarray(list(triples) if not isinstance(triples, np.ndarray) else triples)
    arr = arr.reshape(-1, 3) if arr.size else np.zeros((0, 3), dtype=np.int64)
    sizes = [n if n is not None else (int(arr[:, c].max()) + 1 if arr.size else 1)
             for c, n in enumerate((n_keys, n_queries, n_values))]
    return Database(arr, *sizes)


def permutation_array(perm) -> np.ndarray:
    """``perm`` as a 1-d integer array, validated to be a permutation of 0..m-1."""
    arr = np.asarray(perm)
    if arr.ndim != 1 or arr.size < 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"perm must be a non-empty 1-d integer array, got shape {arr.shape}")
    if not np.array_equal(np.sort(arr), np.arange(arr.size)):
        raise ValueError(f"perm must be a permutation of 0..{arr.size - 1}")
    return arr


def permutation_database(perm) -> Database:
    """One predicate, key i -> value perm[i] (an RGR permutation graph read as a database); rank exactly m."""
    arr = permutation_array(perm)
    m = arr.size
    return Database(np.stack([np.arange(m), np.zeros(m, dtype=np.int64), arr], axis=1), m, 1, m)


def graph_database(graph) -> Database:
    """An RGR :class:`~rgr_verify.core.graphs.Digraph` as a one-predicate database: edge (s, t) -> triple (s, 0, t)."""
    from ..core.graphs import Digraph

    if not isinstance(graph, Digraph):
        raise ValueError(f"graph must be a rgr_verify.core.graphs.Digraph, got {type(graph).__name__}")
    e = graph.edges
    return Database(np.stack([e[:, 0], np.zeros(len(e), dtype=np.int64), e[:, 1]], axis=1), graph.m, 1, graph.m)


def random_functional_database(n_keys: int, n_queries: int, n_values: int, *, rng: np.random.Generator) -> Database:
    """Every (key, query) pair gets one value drawn uniformly from ``n_values``: |D| = n_keys n_queries."""
    n_keys = check_int("n_keys", n_keys, min_value=1)
    n_queries = check_int("n_queries", n_queries, min_value=1)
    n_values = check_int("n_values", n_values, min_value=1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    k, q = np.meshgrid(np.arange(n_keys), np.arange(n_queries), indexing="ij")
    v = rng.integers(0, n_values, size=k.shape)
    return Database(np.stack([k.ravel(), q.ravel(), v.ravel()], axis=1), n_keys, n_queries, n_values)


def distinct_value_database(n_keys: int, n_queries: int, *, rng: np.random.Generator | None = None) -> Database:
    """Every (key, query) pair gets its own value (|V| = |D| = n_keys n_queries, values shuffled by ``rng``).

    Its value flattening is a permutation matrix of size |D|, so rank(D) = |D| exactly (certified).
    """
    n_keys = check_int("n_keys", n_keys, min_value=1)
    n_queries = check_int("n_queries", n_queries, min_value=1)
    n = n_keys * n_queries
    v = np.arange(n) if rng is None else rng.permutation(n)
    k, q = np.meshgrid(np.arange(n_keys), np.arange(n_queries), indexing="ij")
    return Database(np.stack([k.ravel(), q.ravel(), v], axis=1), n_keys, n_queries, n)


def single_value_diagonal_database(n: int) -> Database:
    """Triples (i, i, 0) for i < n: rank n (its key-query slice is the identity) yet effective rank 1 (Example 2.4's
    general form: every queried fibre has the same answer)."""
    n = check_int("n", n, min_value=1)
    i = np.arange(n)
    return Database(np.stack([i, i, np.zeros(n, dtype=np.int64)], axis=1), n, n, 1)


BORN_LIVES_CURRENCY = {
    "keys": ("Alice", "Bob", "Carol", "France", "UK"),
    "queries": ("born_in", "lives_in", "currency"),
    "values": ("France", "UK", "Euro", "Pound"),
    "triples": (("Alice", "born_in", "France"), ("Alice", "lives_in", "France"), ("Bob", "born_in", "UK"),
                ("Bob", "lives_in", "France"), ("Carol", "born_in", "UK"), ("Carol", "lives_in", "UK"),
                ("France", "currency", "Euro"), ("UK", "currency", "Pound")),
}


def example_facts_database() -> Database:
    """An 8-triple database over the predicates born_in, lives_in and currency (:data:`BORN_LIVES_CURRENCY`), of
    the kind 2502.05076 uses as its example (our reconstruction; its exact triples are not in the summary).

    Proposition 2.1 gives rank <= 6 (sum_k |V_k| = sum_q |V_q| = 6); the key flattening has rank 5 and a 5-term
    decomposition exists (the three people span a 2 x 2 x 3 tensor of rank 3), so rank = 5 < 6.
    """
    ex = BORN_LIVES_CURRENCY
    ids = [{name: i for i, name in enumerate(ex[part])} for part in ("keys", "queries", "values")]
    return database_from_triples([(ids[0][k], ids[1][q], ids[2][v]) for k, q, v in ex["triples"]],
                                 n_keys=len(ex["keys"]), n_queries=len(ex["queries"]), n_values=len(ex["values"]))


# --------------------------------------------------------------------------------------------------------------
# Flattenings and exact ranks


def flattenings(T: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three flattenings of a 3-tensor ``[I, J, K]``: ``[I, J K]``, ``[J, I K]``, ``[K, I J]``."""
    T = np.asarray(T)
    if T.ndim != 3:
        raise ValueError(f"T must be a 3-tensor, got shape {T.shape}")
    I, J, K = T.shape
    return (T.reshape(I, J * K), T.transpose(1, 0, 2).reshape(J, I * K), T.transpose(2, 0, 1).reshape(K, I * J))


def modular_rank(M, *, p: int = MODULUS) -> int:
    """Rank of an integer matrix over GF(p) by exact Gaussian elimination (int64).

    For an integer matrix this is at most its rank over Q (a minor that vanishes over Q vanishes mod p), so it is
    a certified lower bound of the rational (and real) rank; for a prime p not dividing the relevant minors it is
    equal to it.
    """
    M = np.asarray(M)
    if M.ndim != 2 or not np.issubdtype(M.dtype, np.integer):
        raise ValueError(f"M must be a 2-d integer array, got shape {M.shape}, dtype {M.dtype}")
    p = check_int("p", p, min_value=2, max_value=MODULUS)
    A = np.mod(M.astype(np.int64), p)
    rows, cols = A.shape
    rank = 0
    for c in range(cols):
        if rank == rows:
            break
        nz = np.flatnonzero(A[rank:, c])
        if nz.size == 0:
            continue
        piv = rank + int(nz[0])
        if piv != rank:
            A[[rank, piv]] = A[[piv, rank]]
        inv = pow(int(A[rank, c]), p - 2, p)
        A[rank] = (A[rank] * inv) % p
        below = np.flatnonzero(A[rank + 1:, c]) + rank + 1
        if below.size:
            A[below] = (A[below] - (A[below, c:c + 1] * A[rank]) % p) % p
        rank += 1
    return rank


def flattening_lower_bound(T) -> int:
    """max over the three flattenings of their rank over GF(p): a certified lower bound of rank(T) (integer T)."""
    return max(modular_rank(F) for F in flattenings(np.asarray(T)))


def prop21_bounds(db: Database) -> dict[str, int]:
    """Proposition 2.1's quantities: sum_k |V_k|, sum_q |V_q| (|V_x| = distinct values stored with x) and |D|.

    Reading: |V_k| counts the distinct values occurring with key k over all queries (likewise |V_q|).
    """
    if not isinstance(db, Database):
        raise ValueError(f"db must be a Database, got {type(db).__name__}")
    t = db.triples
    by_key = len(np.unique(t[:, [0, 2]], axis=0)) if db.size else 0
    by_query = len(np.unique(t[:, [1, 2]], axis=0)) if db.size else 0
    return {"sum_k |V_k|": by_key, "sum_q |V_q|": by_query, "|D|": db.size,
            "bound": min(by_key, by_query)}


def slice_decomposition(db: Database, *, by: str = "query") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An explicit CP decomposition of D with sum_q |V_q| (``by="query"``) or sum_k |V_k| (``by="key"``) terms.

    by="query": one term per stored (q, v): a = indicator of the keys k with (k, q, v) in D, b = e_q, c = e_v.
    Returns integer factor matrices ``A [|K|, R]``, ``B [|Q|, R]``, ``C [|V|, R]`` with D = sum_r a_r (x) b_r (x) c_r.
    """
    if not isinstance(db, Database):
        raise ValueError(f"db must be a Database, got {type(db).__name__}")
    check_choice("by", by, ("query", "key"))
    t = db.triples
    pair_cols = [1, 2] if by == "query" else [0, 2]
    pairs = np.unique(t[:, pair_cols], axis=0) if db.size else np.zeros((0, 2), dtype=np.int64)
    R = len(pairs)
    A = np.zeros((db.n_keys, R), dtype=np.int64)
    B = np.zeros((db.n_queries, R), dtype=np.int64)
    C = np.zeros((db.n_values, R), dtype=np.int64)
    index = {tuple(pq): r for r, pq in enumerate(pairs.tolist())}
    for k, q, v in t.tolist():
        r = index[(q, v) if by == "query" else (k, v)]
        A[k, r], B[q, r], C[v, r] = 1, 1, 1  # by="key": a = e_k, b = the queries of (k, v), c = e_v
    return A, B, C


def cp_tensor(A, B, C) -> np.ndarray:
    """sum_r A[:, r] (x) B[:, r] (x) C[:, r], shape ``[I, J, K]`` (exact for integer factors)."""
    A, B, C = (np.asarray(x) for x in (A, B, C))
    if A.ndim != 2 or B.ndim != 2 or C.ndim != 2 or not (A.shape[1] == B.shape[1] == C.shape[1]):
        raise ValueError(f"factors must be 2-d with the same number of columns, got {A.shape}, {B.shape}, {C.shape}")
    return np.einsum("ir,jr,kr->ijk", A, B, C)


def is_decomposition(T, factors, *, atol: float = 0.0) -> bool:
    """True when the CP factors reproduce T (exactly for integer input and ``atol=0``)."""
    atol = check_real("atol", atol, low=0.0)
    T = np.asarray(T)
    R = cp_tensor(*factors)
    if R.shape != T.shape:
        return False
    return bool(np.array_equal(R, T)) if atol == 0 else bool(np.max(np.abs(R - T), initial=0.0) <= atol)


@dataclass(frozen=True)
class RankBounds:
    """Certified bounds on a tensor rank: ``lower <= rank <= upper`` (equal: the rank is certified).

    Attributes:
        lower: max flattening rank over GF(p) (certified lower bound).
        upper: number of terms of an explicit decomposition checked exactly (certified upper bound).
        how: which certificates were used.
        factors: the integer factors ``(A, B, C)`` of the decomposition that gives ``upper``, with
            ``denominator * D = sum_r A[:, r] (x) B[:, r] (x) C[:, r]`` exactly (checked before returning).
        denominator: the positive integer that clears the decomposition's rational coefficients (1 for an integer
            decomposition).
    """

    lower: int
    upper: int
    how: str
    factors: tuple | None = field(default=None, compare=False, repr=False)
    denominator: int = 1

    @property
    def exact(self) -> bool:
        return self.lower == self.upper


def _sign_vectors(n: int) -> np.ndarray:
    """Every nonzero vector of {-1, 0, 1}^n whose first nonzero entry is +1 (one per sign class), sparsest first."""
    if n == 0:
        return np.zeros((0, 0), dtype=np.int64)
    grid = np.array(np.meshgrid(*([np.array([0, 1, -1])] * n), indexing="ij")).reshape(n, -1).T
    nz = grid != 0
    keep = nz.any(1)
    first = np.where(nz, grid, 0)[np.arange(len(grid)), np.argmax(nz, axis=1)]
    grid = grid[keep & (first == 1)]
    return grid[np.argsort(np.count_nonzero(grid, axis=1), kind="stable")].astype(np.int64)


def _exact_solve_rows(F, M):
    """Rational A with A M = F exactly (M of full row rank), as (integer A * L, L), or None."""
    from fractions import Fraction
    from math import lcm

    Ms = sp.Matrix(M.tolist())
    _, piv = Ms.rref()
    sub = Ms.extract(list(range(Ms.rows)), list(piv))
    if sub.rows != sub.cols or sub.det() == 0:
        return None
    A = sp.Matrix(F.tolist()).extract(list(range(F.shape[0])), list(piv)) * sub.inv()
    if A * Ms != sp.Matrix(F.tolist()):
        return None
    fr = [[Fraction(int(sp.fraction(x)[0]), int(sp.fraction(x)[1])) for x in A.row(i)] for i in range(A.rows)]
    L = lcm(1, *(x.denominator for row in fr for x in row))
    return np.array([[int(x * L) for x in row] for row in fr], dtype=np.int64).reshape(A.rows, A.cols), L


def rank_one_span_decomposition(T, *, max_candidates: int = 200_000):
    """Search for a decomposition of the integer 3-tensor ``T`` with as many terms as its largest flattening rank
    (which is then its rank, certified). Returns ``(factors, denominator)`` with
    ``denominator * T = cp_tensor(*factors)`` checked exactly, or None when the search finds none.

    If rank(T) equals the rank r of the mode-i flattening, the mode-i slices span the same space as the r rank-one
    matrices of a minimal decomposition. The search lists the rank-one matrices b c^T with b, c in {-1, 0, 1}^n
    (restricted to the support of T, sparsest first) that lie in the span of the slices, keeps r linearly independent
    ones, and solves for the mode-i factor exactly over the rationals. A None is not a proof that the rank exceeds r:
    the rank-one matrices of every minimal decomposition may have entries outside {-1, 0, 1}.
    """
    T = np.asarray(T)
    if T.ndim != 3 or not np.issubdtype(T.dtype, np.integer):
        raise ValueError(f"T must be an integer 3-tensor, got shape {T.shape}, dtype {T.dtype}")
    max_candidates = check_int("max_candidates", max_candidates, min_value=1)
    if not T.any():
        return None
    supp = [np.flatnonzero(np.moveaxis(T, a, 0).reshape(T.shape[a], -1).any(1)) for a in range(3)]
    S = T[np.ix_(*supp)]
    ranks = [modular_rank(F) for F in flattenings(S)]
    r = max(ranks)
    for mode in (a for a in range(3) if ranks[a] == r):
        rest = [a for a in range(3) if a != mode]
        J, K = S.shape[rest[0]], S.shape[rest[1]]
        if ((3**J - 1) // 2) * ((3**K - 1) // 2) > max_candidates:
            continue
        F = np.moveaxis(S, mode, 0).reshape(S.shape[mode], J * K)  # slices of this mode as rows
        basis = np.linalg.svd(F.astype(float), full_matrices=False)[2][:r]  # orthonormal row space (float filter)
        bs, cs = _sign_vectors(J), _sign_vectors(K)
        cand = np.einsum("aj,bk->abjk", bs, cs).reshape(-1, J * K)
        order = np.argsort(np.count_nonzero(cand, axis=1), kind="stable")
        cand = cand[order]
        resid = np.linalg.norm(cand - (cand @ basis.T) @ basis, axis=1)
        inside = cand[resid <= 1e-9 * np.linalg.norm(cand, axis=1)]
        chosen: list[np.ndarray] = []
        ortho = np.zeros((0, J * K))
        for v in inside:  # greedy independent subset (float filter; the exact solve below re-checks independence)
            w = v - (ortho @ v) @ ortho
            if np.linalg.norm(w) > 1e-8 * np.linalg.norm(v):
                chosen.append(v)
                ortho = np.vstack([ortho, w / np.linalg.norm(w)])
                if len(chosen) == r:
                    break
        if len(chosen) < r:
            continue
        M = np.array(chosen)
        solved = _exact_solve_rows(F, M)
        if solved is None:
            continue
        coef, L = solved
        # rank-one rows b c^T -> factors b, c (first nonzero row / column of each)
        Bs, Cs = [], []
        for v in M:
            R = v.reshape(J, K)
            i = int(np.flatnonzero(R.any(1))[0])
            j = int(np.flatnonzero(R.any(0))[0])
            b, c = R[:, j], R[i]
            b = b * np.sign(R[i, j])  # R = b c^T with R[i, j] = b_i c_j = +-1
            Bs.append(b)
            Cs.append(c)
        parts = {mode: coef, rest[0]: np.array(Bs).T, rest[1]: np.array(Cs).T}
        factors = []
        for a in range(3):
            full = np.zeros((T.shape[a], r), dtype=np.int64)
            full[supp[a]] = parts[a]
            factors.append(full)
        if np.array_equal(cp_tensor(*factors), L * T.astype(np.int64)):
            return tuple(factors), int(L)
    return None


def rank_bounds(db: Database, *, search: bool = True, max_candidates: int = 200_000) -> RankBounds:
    """Certified bounds on rank(D): flattening ranks below; above, the smaller Proposition 2.1 decomposition, or
    (``search``, when it is above the lower bound) a decomposition with as many terms as the lower bound found by
    :func:`rank_one_span_decomposition`, which then certifies the rank. Every upper bound is an explicit
    decomposition checked exactly."""
    if not isinstance(db, Database):
        raise ValueError(f"db must be a Database, got {type(db).__name__}")
    D = db.tensor()
    best = None
    for by in ("query", "key"):
        f = slice_decomposition(db, by=by)
        if not is_decomposition(D, f):  # pragma: no cover - would be a bug in slice_decomposition
            raise RuntimeError("slice decomposition does not reproduce D")
        if best is None or f[0].shape[1] < best[1]:
            best = (by, f[0].shape[1], f)
    lower = flattening_lower_bound(D) if db.size else 0
    how = f"flattening rank over GF({MODULUS}) <= rank <= "
    if search and lower < best[1]:
        found = rank_one_span_decomposition(D, max_candidates=max_candidates)
        if found is not None and found[0][0].shape[1] == lower:
            return RankBounds(lower=lower, upper=lower, factors=found[0], denominator=found[1],
                              how=how + f"{lower}-term decomposition found by a rank-one span search "
                                        f"(exact, denominator {found[1]})")
    return RankBounds(lower=lower, upper=best[1], factors=best[2],
                      how=how + f"{best[1]}-term decomposition by {best[0]} (exact)")
