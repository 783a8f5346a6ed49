"""Rankings of a field from its payoff matrix that hold up: Nash averaging, α-Rank, and their stability.

A league (:mod:`training.league_stats`) measures ``M[i, j]``: agent ``i``'s result minus agent ``j``'s per deal, over
the deals where both sat at one table. ``M`` is antisymmetric by construction (``M[j, i] = -M[i, j]``: the same
deals, the difference taken the other way) and its diagonal is undefined (an agent never meets itself); with ``0`` on
the diagonal (:func:`league_matrix`) it is the payoff matrix ``A`` of a symmetric two-player zero-sum *meta-game*:
each player picks an agent, and the row player wins ``A[i, j]``. (For a general payoff table ``P``, where ``P[i, j]``
is what ``i`` scores against ``j``, the same matrix is ``A = P - P.T``: :func:`antisymmetric`.) A league's mean
result ranks the agents by their average over the field, so it rewards beating whoever happens to be in it: a few
weak agents that one agent exploits lift that agent. The two methods below rank from ``A`` by who beats whom
instead: Nash averaging ignores copies and agents that the equilibrium does not need (its main property), and
α-Rank ranks by which agent a population ends up playing, where a dominated agent hardly counts.

- **Nash averaging** (Balduzzi, Tuyls, Pérolat and Graepel, "Re-evaluating evaluation", NeurIPS 2018,
  arXiv:1806.02643): the meta-game has value 0 and its Nash equilibria (mixtures ``p`` of agents) are the polytope
  ``{p >= 0, sum(p) = 1, A @ p <= 0}``; among them the *maximum-entropy* one ``p*`` is unique, and it spreads its
  weight equally over duplicated agents (so adding a copy of an agent changes nothing). The *Nash average* of agent
  ``i`` is ``(A @ p*)[i]``: its payoff against the equilibrium mixture. It is ``0`` for the agents in the support of
  ``p*`` (nobody beats the mixture) and negative for the rest: by how much the mixture beats them.
  :func:`nash_average` finds the support with linear programs (the agents some equilibrium plays) and then maximises
  the entropy over the equilibria on that support through the convex dual (``p* ∝ exp(A @ λ)``).
- **α-Rank** (Omidshafiei, Papadimitriou, Piliouras, Tuyls, Rowland, Lespiau, Czarnecki, Lanctot, Pérolat and Munos,
  "α-Rank: Multi-Agent Evaluation by Evolution", Scientific Reports 9, 9937, 2019, arXiv:1903.01373), single
  population: a population of ``m`` individuals all playing one agent; a mutant playing another agent ``r`` appears
  and takes over (*fixates*) with the probability ``ρ(r, s)`` of a Moran process with the Fermi selection function
  of intensity ``α``: each step one individual copies another with probability ``1 / (1 + exp(-α (f_copied -
  f_copier)))``, where an individual's fitness ``f`` is its mean payoff against the ``m - 1`` others. The chain over
  the agents that moves from ``s`` to ``r`` with probability ``ρ(r, s) / (K - 1)`` has a unique stationary
  distribution ``π``: the share of time the population spends on each agent; the ranking orders the agents by it.
  :func:`alpha_rank` follows OpenSpiel's ``open_spiel.python.egt.alpharank.compute`` with
  ``use_local_selection_model=False`` (the paper's model; OpenSpiel's default, the *local* model, compares the two
  agents' payoffs against each other only), with the payoffs first scaled to unit range (divided by ``max - min``,
  so that ``α`` does not depend on the game's currency), ``α =`` :data:`ALPHA` and ``m =`` :data:`POPULATION`.
  For an antisymmetric ``A`` the fitness difference is the same at every step, ``m / (m - 1) · A[r, s]``, and
  ``ρ(r, s) = (1 - exp(-u)) / (1 - exp(-m u))`` with ``u = α m / (m - 1) · A[r, s]``. The stationary distribution
  is computed in log space by the Grassmann–Taksar–Heyman state reduction (no subtraction, so a large ``α``, whose
  fixation probabilities are as small as ``exp(-α m)``, is exact too).
- **Stability**: :func:`kendall_tau`, the rank correlation between the rankings computed on two halves of the data
  (in a league, the even and the odd deal groups): ``+1`` the same order, ``0`` unrelated, ``-1`` reversed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.core.checks import ArgumentError

ALPHA = 10.0
"""Default ranking intensity of α-Rank, for payoffs scaled to unit range (``max - min = 1``): large, in the sense
of the paper (strong selection). At ``m = 50``, of two agents 10% of the range apart the better one takes over a
population of the other with probability 0.64, the worse one with ``exp(-50)``; 1% apart, 0.098 (five times the
neutral ``1 / m``) against 0.0006."""

POPULATION = 50
"""Default population size ``m`` of α-Rank (OpenSpiel's default)."""

SUPPORT_TOL = 1e-7
"""An agent is in the Nash support when some equilibrium gives it more weight than this."""

TIE_TOL = 1e-9
"""Two scores closer than this (relative to the larger in magnitude) rank equal."""


class RankingError(ArgumentError):
    """A payoff matrix the rankings cannot use (not square, NaN or infinite entries, not antisymmetric where it
    must be); the message is one line."""


@dataclasses.dataclass(frozen=True)
class NashAverage:
    """The maximum-entropy Nash equilibrium of the meta-game ``A`` and each agent's payoff against it."""

    weights: np.ndarray
    """(K,) the equilibrium mixture ``p*`` (0 outside its support)."""
    payoff: np.ndarray
    """(K,) ``A @ p*``: each agent's payoff against the mixture (0 on the support, negative elsewhere)."""
    support: tuple[int, ...]
    """Agents some equilibrium plays, which ``p*`` plays all."""
    gap: float
    """``max(A @ p*)`` before rounding: how far the solution is from an exact equilibrium (~1e-10 of ``|A|``)."""


def check_square(matrix: object, name: str = "payoff matrix") -> np.ndarray:
    """``matrix`` as a float array; :class:`RankingError` unless it is a non-empty square matrix of finite numbers."""
    try:
        array = np.array(matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise RankingError(f"{name} must be a square matrix of numbers, got {type(matrix).__name__}") from None
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] == 0:
        raise RankingError(f"{name} must be a non-empty square matrix, got shape {array.shape}")
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        i, j = bad[0]
        raise RankingError(f"{name} has {len(bad)} NaN or infinite entries, the first at [{i}, {j}]")
    return array


def antisymmetric(payoff: object) -> np.ndarray:
    """``P - P.T`` of a general payoff table ``P`` (``P[i, j]``: what ``i`` scores against ``j``): ``i``'s payoff
    against ``j`` minus ``j``'s against ``i``."""
    p = check_square(payoff)
    return p - p.T


def league_matrix(payoff: object) -> np.ndarray:
    """The league's payoff matrix (``i``'s result minus ``j``'s per deal, NaN on the diagonal) with ``0`` on the
    diagonal: already antisymmetric, it is ``A`` itself. :class:`RankingError` if a pair never met (NaN elsewhere)."""
    a = np.array(payoff, dtype=np.float64)
    if a.ndim == 2 and a.shape[0] == a.shape[1]:
        np.fill_diagonal(a, 0.0)
    return check_antisymmetric(a)


def check_antisymmetric(a: object, name: str = "payoff matrix") -> np.ndarray:
    """``a`` as a float array; :class:`RankingError` unless square, finite and ``a.T == -a`` (to 1e-9 of its
    largest entry)."""
    a = check_square(a, name)
    scale = float(np.abs(a).max())
    error = float(np.abs(a + a.T).max())
    if error > 1e-9 * max(scale, 1e-300):
        raise RankingError(f"{name} must be antisymmetric (a[i, j] == -a[j, i]; off by {error:.3g}): "
                           "use antisymmetric(P) = P - P.T for a general payoff table")
    return a


def nash_average(a: object) -> NashAverage:
    """The maximum-entropy Nash equilibrium of the symmetric zero-sum game with the antisymmetric payoff matrix
    ``a`` and each agent's payoff against it (Balduzzi et al. 2018; see the module docstring).

    1. The support: for each agent ``i`` a linear program maximises ``p[i]`` over the equilibria
       ``{p >= 0, sum(p) = 1, a @ p <= 0}`` (scipy's HiGHS); ``i`` is in the support when that exceeds
       :data:`SUPPORT_TOL` (of ``a`` scaled to ``max |a| = 1``).
    2. The maximum-entropy equilibrium has full support on it, so the dual of the entropy maximisation is attained:
       ``p[S] = softmax((a @ λ)[S])`` for the ``λ`` that minimises ``logsumexp((a @ λ)[S])`` (:func:`_max_entropy`:
       Newton's method, or L-BFGS-B when an agent outside the support ties with the mixture); duplicated agents
       (equal rows) get exactly equal weights.

    The payoffs on the support are set to exactly 0 (they are, at an exact equilibrium: ``p @ a @ p = 0``), and any
    other within :data:`TIE_TOL` of 0."""
    from scipy.optimize import linprog

    a = check_antisymmetric(a)
    k = len(a)
    scale = float(np.abs(a).max())
    if scale == 0.0:  # every agent equal: the uniform mixture
        return NashAverage(np.full(k, 1 / k), np.zeros(k), tuple(range(k)), 0.0)
    x = a / scale
    found = np.zeros(k, dtype=bool)
    for i in range(k):
        if found[i]:
            continue  # an earlier program's equilibrium already plays i
        objective = np.zeros(k)
        objective[i] = -1.0
        lp = linprog(objective, A_ub=x, b_ub=np.zeros(k), A_eq=np.ones((1, k)), b_eq=[1.0], bounds=(0, None),
                     method="highs")
        if lp.status != 0:  # cannot happen: a finite zero-sum game has an equilibrium
            raise RankingError(f"no equilibrium found for the payoff matrix ({lp.message})")
        found |= lp.x > SUPPORT_TOL
    support = np.flatnonzero(found)
    weights = np.zeros(k)
    weights[support] = _max_entropy(x, support)
    gap = float((x @ weights).max()) * scale
    payoff = a @ weights
    payoff[support] = 0.0
    payoff[np.abs(payoff) <= TIE_TOL * scale] = 0.0
    return NashAverage(weights, payoff, tuple(int(i) for i in support), gap)


def _max_entropy(x: np.ndarray, support: np.ndarray) -> np.ndarray:
    """The maximum-entropy equilibrium's weights on ``support``, the union of the supports of the equilibria of the
    antisymmetric ``x`` (``max |x| = 1``).

    Every equilibrium ``p`` has ``(x @ p)[i] = 0`` for each ``i`` of the support (two equilibria ``p``, ``q`` have
    ``q @ x @ p = 0``, a sum of terms ``q[i] (x @ p)[i] <= 0``), so the equilibria are ``{p >= 0 on the support,
    sum(p) = 1, x[S, S] @ p = 0, x[O, S] @ p <= 0}`` (``O``: the other agents). First without the inequalities: the
    dual ``min_μ logsumexp(x[S, S] @ μ)`` is smooth and unconstrained, solved by Newton's method (least-squares
    steps: its Hessian is singular along the directions that do not move ``p``); ``p = softmax(x[S, S] @ μ)``. If
    that ``p`` also satisfies the inequalities it is the answer (their multipliers are 0); otherwise the dual with
    them, ``min logsumexp(x[S, :] @ λ)`` with ``λ[O] >= 0``, by L-BFGS-B from there."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp, softmax

    if len(support) == 1:
        return np.ones(1)
    inner = x[np.ix_(support, support)]
    mu = np.zeros(len(support))
    value = float(logsumexp(inner @ mu))
    for _ in range(100):
        p = softmax(inner @ mu)
        grad = inner.T @ p
        if np.abs(grad).max() < 1e-15:
            break
        hess = inner.T @ (np.diag(p) - np.outer(p, p)) @ inner
        step = -np.linalg.lstsq(hess, grad, rcond=1e-12)[0]
        t = 1.0
        while t > 1e-10:  # backtracking (Armijo)
            trial = float(logsumexp(inner @ (mu + t * step)))
            if trial <= value + 1e-4 * t * float(grad @ step):
                break
            t /= 2
        else:
            break  # no more progress at double precision
        mu, value = mu + t * step, trial
    p = softmax(inner @ mu)
    others = np.setdiff1d(np.arange(len(x)), support)
    if not len(others) or (x[np.ix_(others, support)] @ p).max() <= 1e-12:
        return p
    rows = x[support]
    lam = np.zeros(len(x))
    lam[support] = mu

    def dual(lam: np.ndarray) -> tuple[float, np.ndarray]:
        z = rows @ lam
        return float(logsumexp(z)), rows.T @ softmax(z)

    in_support = set(support.tolist())
    bounds = [(None, None) if i in in_support else (0, None) for i in range(len(x))]
    res = minimize(dual, lam, jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000})
    return softmax(rows @ res.x)


def _log_fixation(payoff: np.ndarray, alpha: float, m: int) -> np.ndarray:
    """``log ρ(r, s)`` for every pair: the log probability that one mutant playing ``r`` takes over a population of
    ``m - 1`` playing ``s`` (Moran process, Fermi selection, fitness = mean payoff against the others).

    With ``k`` mutants, ``f_r(k) = ((k - 1) P[r, r] + (m - k) P[r, s]) / (m - 1)`` and ``f_s(k) = (k P[s, r] +
    (m - k - 1) P[s, s]) / (m - 1)``; the chance of one more mutant over one fewer is ``exp(α (f_r - f_s))``, so
    ``ρ(r, s) = 1 / sum_{l=0}^{m-1} prod_{k=1}^{l} exp(-α (f_r(k) - f_s(k)))`` (Omidshafiei et al. 2019, the
    single-population fixation probability; OpenSpiel's ``_get_rho_sr``)."""
    from scipy.special import logsumexp

    k = np.arange(1, m)[:, None, None]  # mutants, on the first axis; r on the second, s on the third
    p_rr = np.diag(payoff)[None, :, None]
    p_ss = np.diag(payoff)[None, None, :]
    f_r = ((k - 1) * p_rr + (m - k) * payoff[None, :, :]) / (m - 1)
    f_s = (k * payoff.T[None, :, :] + (m - k - 1) * p_ss) / (m - 1)
    steps = np.cumsum(-alpha * (f_r - f_s), axis=0)  # log of the product for l = 1 .. m - 1
    terms = np.concatenate([np.zeros((1, *payoff.shape)), steps], axis=0)  # l = 0: the empty product, 1
    return -logsumexp(terms, axis=0)


def fixation_probabilities(payoff: object, alpha: float = ALPHA, population: int = POPULATION,
                           unit_range: bool = True) -> np.ndarray:
    """``rho[r, s]``: the probability that one mutant playing ``r`` takes over a population playing ``s`` (the
    diagonal is ``1 / m``, the neutral value). Arguments as :func:`alpha_rank`."""
    p, alpha, m = _alpha_rank_input(payoff, alpha, population, unit_range)
    rho = np.exp(_log_fixation(p, alpha, m))
    np.fill_diagonal(rho, 1 / m)
    return rho


def _alpha_rank_input(payoff: object, alpha: float, population: int,
                      unit_range: bool) -> tuple[np.ndarray, float, int]:
    p = check_square(payoff)
    if isinstance(population, bool) or not isinstance(population, (int, np.integer)) or population < 2:
        raise RankingError(f"population must be an integer >= 2, got {population!r}")
    if not (isinstance(alpha, (int, float, np.number)) and np.isfinite(alpha) and alpha >= 0):
        raise RankingError(f"alpha must be a finite number >= 0, got {alpha!r}")
    if unit_range:
        spread = float(p.max() - p.min())
        p = p / spread if spread > 0 else np.zeros_like(p)
    return p, float(alpha), int(population)


def alpha_rank(payoff: object, alpha: float = ALPHA, population: int = POPULATION,
               unit_range: bool = True) -> np.ndarray:
    """Single-population α-Rank (Omidshafiei et al. 2019; see the module docstring): the stationary distribution
    ``π`` over the agents of a symmetric game with payoff table ``payoff`` (``payoff[r, s]``: what ``r`` scores
    against ``s``; in a league, the antisymmetric ``A``). ``unit_range``: divide the payoffs by ``max - min``
    first. The same as OpenSpiel's ``alpharank.compute([payoff], m=population, alpha=alpha,
    use_local_selection_model=False)[2]`` on the (scaled) table, to rounding. With a large ``α`` the masses of
    dominated agents underflow to 0; :func:`alpha_rank_log` still orders them."""
    return np.exp(alpha_rank_log(payoff, alpha, population, unit_range))


def alpha_rank_log(payoff: object, alpha: float = ALPHA, population: int = POPULATION,
                   unit_range: bool = True) -> np.ndarray:
    """The natural logarithm of :func:`alpha_rank`'s ``π``, computed without leaving log space (finite however
    small the mass)."""
    p, alpha, m = _alpha_rank_input(payoff, alpha, population, unit_range)
    if len(p) == 1:
        return np.zeros(1)
    # log transition probabilities s -> r: log(ρ(r, s) / (K - 1)); the 1 / (K - 1) is common and drops out of π.
    log_c = _log_fixation(p, alpha, m).T.copy()  # [s, r]
    np.fill_diagonal(log_c, -np.inf)
    return _stationary_log_gth(log_c)


def _stationary_log_gth(log_c: np.ndarray) -> np.ndarray:
    """Log of the stationary distribution of the irreducible chain whose off-diagonal transition probabilities are
    ``exp(log_c)`` (the diagonal is ignored): Grassmann, Taksar and Heyman's state reduction (1985), in log space.

    States are removed last to first: the probability out of state ``n`` to the states left, ``S``, rescales the
    column into ``n``, and the paths through ``n`` are added to the states left; then ``π[0] = 1`` and ``π[n]`` is the
    flow into ``n`` from the states before it."""
    from scipy.special import logsumexp

    lc = log_c.copy()
    k = len(lc)
    for n in range(k - 1, 0, -1):
        out = logsumexp(lc[n, :n])
        if not np.isfinite(out):
            raise RankingError("the alpha-rank chain is reducible (a fixation probability underflowed)")
        lc[:n, n] -= out
        lc[:n, :n] = np.logaddexp(lc[:n, :n], lc[:n, n, None] + lc[None, n, :n])
    log_pi = np.zeros(k)
    for n in range(1, k):
        log_pi[n] = logsumexp(log_pi[:n] + lc[:n, n])
    return log_pi - logsumexp(log_pi)


def competition_ranks(scores: object, tol: float = TIE_TOL) -> list[int]:
    """1-based ranks, the highest score first; scores within ``tol`` of each other (relative to the larger in
    magnitude) share the best rank of their group ("1, 2, 2, 4")."""
    s = np.asarray(scores, dtype=np.float64)
    limit = tol * np.maximum(np.abs(s)[:, None], np.abs(s)[None, :])
    return [1 + int(n) for n in (s[None, :] > s[:, None] + limit).sum(axis=1)]


def kendall_tau(x: object, y: object, tol: float = TIE_TOL) -> float | None:
    """Kendall's rank correlation (τ-b: ties count as neither agreement nor disagreement) between two score vectors
    of the same agents, tied as :func:`competition_ranks` ties them; ``None`` when it is undefined (fewer
    than two agents, or one vector all tied). ``scipy.stats.kendalltau`` on the tie-rounded ranks."""
    from scipy.stats import kendalltau

    rx, ry = competition_ranks(x, tol), competition_ranks(y, tol)
    if len(rx) != len(ry):
        raise RankingError(f"kendall_tau needs two score vectors of one length, got {len(rx)} and {len(ry)}")
    if len(rx) < 2 or len(set(rx)) < 2 or len(set(ry)) < 2:
        return None
    return float(kendalltau(rx, ry)[0])
