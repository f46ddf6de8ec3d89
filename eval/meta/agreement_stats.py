"""Agreement statistics of raters (and a judge), computed for many bootstrap draws at once.

Every function takes item weights ``w`` of shape ``(draws, items)``: a bootstrap draw that picks
item i k times gives it weight k, and the full data is one row of ones. Items whose weight is 0
(not drawn, or not rated by both sides) take no part. Each function returns one value per draw and
NaN where the statistic is undefined (a constant side, a single value, fewer than two items). The
definitions, checked against the reference implementations in ``tests/eval/meta/test_agreement_stats.py``:

- :func:`pearson`: Pearson's r (scipy's ``pearsonr`` on the drawn items, repeats included; computed by
  :func:`tribunal.eval.meta.correlation.pearson_rows`, the one implementation);
- :func:`kendall_tau_b`: Kendall's tau-b (scipy's ``kendalltau`` default, ``variant="b"``), which
  corrects for ties, frequent in MQM scores: (concordant - discordant) / sqrt(pairs not tied in x *
  pairs not tied in y); copies of one item are tied on both sides and count in no term;
- :func:`weighted_kappa`: Cohen's weighted kappa over ordered categories (Cohen 1968; scikit-learn's
  ``cohen_kappa_score(weights="linear"|"quadratic")``): 1 - sum(v * observed) / sum(v * expected), with
  disagreement weights v = |i - j| (linear) or (i - j)^2 (quadratic);
- :func:`alpha_interval` and :func:`alpha_ordinal`: Krippendorff's alpha for any number of raters
  with missing values (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"; the
  ``krippendorff`` package), 1 - D_o / D_e over the pairable items (two or more values). Interval:
  squared differences of the values; ordinal: over ranked categories, the distance of c and k is
  (sum of n_g for g from c to k - (n_c + n_k) / 2)^2 with n_g the pooled frequencies of the draw.
"""

from __future__ import annotations

import numpy as np

from tribunal.eval.meta.correlation import pearson_rows

KAPPA_WEIGHTS = ("linear", "quadratic")
_BLOCK = 256  # columns of the pair-sign matrix built at a time (bounded memory for many items)


def _as_weights(w: np.ndarray, n: int) -> np.ndarray:
    w = np.asarray(w, dtype=float)
    return w.reshape(1, n) if w.ndim == 1 else w


def pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson's r of ``x`` and ``y`` under each row of weights (:func:`~tribunal.eval.meta.correlation.pearson_rows`)."""
    x = np.asarray(x, dtype=float)
    return pearson_rows(x, y, _as_weights(w, len(x)))


def _pair_sums(signs_of, w: np.ndarray) -> np.ndarray:
    """``sum_ij w_i w_j S_ij`` per draw, building S a block of columns at a time."""
    total = np.zeros(w.shape[0])
    n = w.shape[1]
    for start in range(0, n, _BLOCK):
        block = slice(start, min(start + _BLOCK, n))
        total += ((w @ signs_of(block)) * w[:, block]).sum(axis=1)
    return total


def kendall_tau_b(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of ``x`` and ``y`` under each row of weights."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    w = _as_weights(w, len(x))
    sx = lambda b: np.sign(x[:, None] - x[None, b])  # noqa: E731
    sy = lambda b: np.sign(y[:, None] - y[None, b])  # noqa: E731
    both = _pair_sums(lambda b: sx(b) * sy(b), w)
    untied_x = _pair_sums(lambda b: np.abs(sx(b)), w)
    untied_y = _pair_sums(lambda b: np.abs(sy(b)), w)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = both / np.sqrt(untied_x * untied_y)
    tau[(untied_x <= 0) | (untied_y <= 0)] = np.nan
    return np.clip(tau, -1.0, 1.0)


def _disagreement_weights(k: int, weighting: str) -> np.ndarray:
    if weighting not in KAPPA_WEIGHTS:
        raise ValueError(f"kappa weights must be one of {', '.join(KAPPA_WEIGHTS)}, not {weighting!r}")
    distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
    return distance if weighting == "linear" else distance ** 2


def weighted_kappa(a: np.ndarray, b: np.ndarray, w: np.ndarray, k: int, weighting: str = "quadratic") -> np.ndarray:
    """Cohen's weighted kappa of category codes ``a`` and ``b`` (0 .. k-1, ordered)."""
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    w = _as_weights(w, len(a))
    cells = np.zeros((len(a), k * k))
    cells[np.arange(len(a)), a * k + b] = 1.0
    observed = (w @ cells).reshape(-1, k, k)
    total = observed.sum(axis=(1, 2))
    expected = observed.sum(axis=2)[:, :, None] * observed.sum(axis=1)[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = expected / total[:, None, None]
        v = _disagreement_weights(k, weighting)
        chance = (expected * v).sum(axis=(1, 2))
        kappa = 1.0 - (observed * v).sum(axis=(1, 2)) / chance
    kappa[(total <= 0) | (chance <= 1e-12 * np.maximum(total, 1))] = np.nan
    return kappa


def alpha_interval(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Krippendorff's interval alpha of ``values`` (raters x items, NaN where unrated)."""
    values = np.asarray(values, dtype=float)
    w = _as_weights(w, values.shape[1])
    rated = ~np.isnan(values)
    m = rated.sum(axis=0)
    pairable = m >= 2
    centred = np.where(rated, values - np.nanmean(values[:, pairable]) if pairable.any() else 0.0, 0.0)
    s1, s2 = centred.sum(axis=0), (centred ** 2).sum(axis=0)
    mm = np.where(pairable, m, 1)
    within = np.where(pairable, (s2 - s1 ** 2 / mm) * mm / np.maximum(mm - 1, 1), 0.0)  # m SS_u / (m - 1)
    wp = w * pairable
    n = wp @ m
    with np.errstate(invalid="ignore", divide="ignore"):
        total_ss = wp @ s2 - (wp @ s1) ** 2 / n
        alpha = 1.0 - (n - 1) * (wp @ within) / (n * total_ss)
    alpha[(n < 2) | (total_ss <= 1e-12 * np.maximum(1.0, wp @ s2))] = np.nan
    return alpha


def alpha_ordinal(codes: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Krippendorff's ordinal alpha of category codes (raters x items, 0 .. k-1, -1 where unrated)."""
    codes = np.asarray(codes, dtype=int)
    w = _as_weights(w, codes.shape[1])
    counts = np.stack([(codes == c).sum(axis=0) for c in range(k)], axis=1).astype(float)  # items x k
    m = counts.sum(axis=1)
    pairable = m >= 2
    pairs = counts[:, :, None] * counts[:, None, :] - np.eye(k)[None] * counts[:, :, None]
    unit = np.where(pairable[:, None, None], pairs / np.maximum(m - 1, 1)[:, None, None], 0.0)
    coincidence = (w @ unit.reshape(len(m), k * k)).reshape(-1, k, k)
    marginal = coincidence.sum(axis=2)  # n_c per draw
    n = marginal.sum(axis=1)
    cumulative = np.cumsum(marginal, axis=1)
    distance = (cumulative[:, None, :] - cumulative[:, :, None]
                + (marginal[:, :, None] - marginal[:, None, :]) / 2) ** 2  # [c, k]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = (marginal[:, :, None] * marginal[:, None, :] * distance).sum(axis=(1, 2))
        alpha = 1.0 - (n - 1) * (coincidence * distance).sum(axis=(1, 2)) / expected
    alpha[(n < 2) | (expected <= 0)] = np.nan
    return alpha


def bootstrap_weights(n_items: int, samples: int, seed: int) -> np.ndarray:
    """``samples`` bootstrap draws of ``n_items`` items as weights (times each item was drawn).

    Draw b picks ``numpy.random.default_rng(seed).integers(0, n_items, (samples, n_items))[b]``.
    """
    picks = np.random.default_rng(seed).integers(0, n_items, size=(samples, n_items))
    offsets = (np.arange(samples) * n_items)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=samples * n_items).reshape(samples, n_items).astype(float)


def percentile_interval(draws: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of the defined draws (numpy's linear interpolation); NaNs if none."""
    finite = draws[np.isfinite(draws)]
    if not len(finite):
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)
