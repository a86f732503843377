#!/usr/bin/python3
# tests/reference/stats_reference.py — a random corpus for `rtk calibrate`, and its statistics from scikit-learn, scipy and numpy.
"""Usage: stats_reference.py SEED CORPUS.jsonl [BINS] [HIGH] [continuous] > expected.json

Writes a random corpus of {"confidence": c, "correct": bool} lines to CORPUS.jsonl (with
"continuous": 20,000 rows, every confidence distinct, printed with up to 17 digits) and prints the
values rtk's stats module must reproduce, computed row by row with no shortcut the C code shares:
scikit-learn for AUC, Brier score, log loss and the ROC curve, scipy for the Mann-Whitney test and
an O(N*M) DeLong over every (correct, wrong) pair. Undefined values are null. The same seed always
gives the same corpus and the same numbers.
"""
import json
import sys

import numpy as np
from scipy import stats
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score, roc_curve

LOG_LOSS_EPS = 1e-15


def make_corpus(seed):
    """Heavily tied confidences from a short menu (with 0 and 1 in it) mixed with near-continuous ones."""
    rng = np.random.default_rng(seed)
    menu = np.concatenate(([0.0, 1.0], np.round(np.arange(0.05, 1.0, 0.05), 2)))
    few = rng.choice(menu, size=int(rng.integers(2, 9)), replace=False)
    tied = rng.choice(few, size=int(rng.integers(500, 2500)), p=rng.dirichlet(np.ones(len(few))))
    spread = rng.beta(rng.uniform(0.5, 4), rng.uniform(0.5, 4), size=int(rng.integers(300, 1500)))
    # a third of the continuous ones rounded to three places: mild ties on top of heavy ones
    third = len(spread) // 3
    spread[:third] = np.round(spread[:third], 3)
    confidence = np.concatenate((tied, spread))
    # the informativeness varies by seed and may be negative, so AUC < 0.5 gets exercised too
    slope = rng.uniform(-0.4, 1.2)
    p_correct = np.clip(rng.uniform(0.3, 0.7) + slope * (confidence - 0.5), 0.03, 0.97)
    correct = rng.random(len(confidence)) < p_correct
    order = rng.permutation(len(confidence))
    return confidence[order], correct[order]


def make_continuous_corpus(seed):
    """A model's probabilities: every confidence distinct, as many as rtk keeps past its hash table."""
    rng = np.random.default_rng(seed)
    confidence = rng.beta(rng.uniform(0.8, 3), rng.uniform(0.8, 3), size=20000)
    p_correct = np.clip(0.5 + rng.uniform(-0.2, 0.8) * (confidence - 0.5), 0.03, 0.97)
    return confidence, rng.random(len(confidence)) < p_correct


def number(x):
    x = float(x)
    return None if np.isnan(x) else x


def interval(lo, hi):
    return [number(lo), number(hi)]


def delong_pairwise(pos, neg):
    """DeLong's placements from the full pair matrix: psi = 1 above, 1/2 tied, 0 below."""
    # in blocks of correct rows, so 20,000 rows need no 10,000 x 10,000 matrix of floats at once
    v10 = np.empty(len(pos))
    col_sum = np.zeros(len(neg))
    tied = 0.0
    for start in range(0, len(pos), 512):
        block = pos[start:start + 512, None]
        psi = (block > neg[None, :]) + 0.5 * (block == neg[None, :])
        v10[start:start + 512] = psi.mean(axis=1)
        col_sum += psi.sum(axis=0)
        tied += float((block == neg[None, :]).sum())
    v01 = col_sum / len(pos)
    pairs = len(pos) * len(neg)
    var = np.nan
    if len(pos) >= 2 and len(neg) >= 2:
        var = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    return v10.mean(), var, tied / pairs


def mann_whitney_z(pos, neg):
    """z from midranks and scipy's tie correction: sigma^2 = PN(n+1)/12 * (1 - sum(t^3-t)/(n^3-n))."""
    ranks = stats.rankdata(np.concatenate((pos, neg)))
    p, n_neg = len(pos), len(neg)
    u = ranks[:p].sum() - p * (p + 1) / 2
    sigma = np.sqrt(p * n_neg * (p + n_neg + 1) / 12 * stats.tiecorrect(ranks))
    return u, (u - p * n_neg / 2 - 0.5) / sigma if sigma > 0 else np.nan


def discrimination(confidence, correct, level):
    pos, neg = confidence[correct], confidence[~correct]
    out = {
        "n": len(confidence), "n_correct": len(pos), "n_wrong": len(neg),
        "distinct_values": len(np.unique(confidence)),
        "auc": None, "auc_se": None, "auc_ci": [None, None], "tied_pair_share": None,
        "mann_whitney": {"u": None, "z": None, "p_greater": None},
    }
    if len(pos) == 0 or len(neg) == 0:
        return out
    auc = roc_auc_score(correct, confidence)
    pair_auc, var, tied = delong_pairwise(pos, neg)
    assert abs(pair_auc - auc) < 1e-12, (pair_auc, auc)
    out["auc"] = auc
    out["tied_pair_share"] = tied
    if len(pos) >= 2 and len(neg) >= 2:
        se = np.sqrt(var)
        z = stats.norm.ppf(1 - (1 - level) / 2)
        out["auc_se"] = se
        out["auc_ci"] = interval(max(0.0, auc - z * se), min(1.0, auc + z * se))
    mw = stats.mannwhitneyu(pos, neg, alternative="greater", method="asymptotic", use_continuity=True)
    u, z = mann_whitney_z(pos, neg)
    assert u == mw.statistic
    out["mann_whitney"] = {"u": float(mw.statistic), "z": number(z), "p_greater": float(mw.pvalue)}
    return out


def width_bins(confidence, bins):
    """Bin i is [i/B, (i+1)/B) with the doubles nearest i/B as edges; 1.0 joins the last bin."""
    edges = np.array([i / bins for i in range(bins)])
    return np.searchsorted(edges, confidence, side="right") - 1


def mass_bins(confidence, bins):
    """Rows sorted by confidence; each row goes where the first row of its value falls."""
    ordered = np.sort(confidence)
    rows_before = np.searchsorted(ordered, confidence, side="left")
    return np.array([int(r) * bins // len(confidence) for r in rows_before])


def expected_error(confidence, y, which, bins):
    gaps = [abs(y[which == b].mean() - confidence[which == b].mean()) for b in range(bins) if (which == b).any()]
    weights = [(which == b).sum() / len(y) for b in range(bins) if (which == b).any()]
    return float(np.dot(weights, gaps)), max(gaps)


def murphy(confidence, y):
    base = y.mean()
    rel = res = 0.0
    for value in np.unique(confidence):
        group = y[confidence == value]
        rel += len(group) * (value - group.mean()) ** 2
        res += len(group) * (group.mean() - base) ** 2
    return rel / len(y), res / len(y), base * (1 - base)


def calibration(confidence, correct, bins):
    y = correct.astype(float)
    width = width_bins(confidence, bins)
    ece_width, mce = expected_error(confidence, y, width, bins)
    ece_mass, _ = expected_error(confidence, y, mass_bins(confidence, bins), bins)
    rel, res, unc = murphy(confidence, y)
    table = []
    for b in range(bins):
        inside = width == b
        table.append({
            "n": int(inside.sum()), "n_correct": int(y[inside].sum()),
            "mean_confidence": number(confidence[inside].mean()) if inside.any() else None,
            "accuracy": number(y[inside].mean()) if inside.any() else None,
        })
    return {
        "brier": brier_score_loss(y, confidence),
        "reliability": rel, "resolution": res, "uncertainty": unc,
        "ece_equal_width": ece_width, "ece_equal_count": ece_mass, "mce": mce,
        "log_loss": log_loss(y, confidence, eps=LOG_LOSS_EPS, labels=[0, 1]),
        "mean_confidence": confidence.mean(), "accuracy": y.mean(),
        "overconfidence": confidence.mean() - y.mean(),
        "reliability_table": table,
    }


def roc(confidence, correct):
    fpr, tpr, _ = roc_curve(correct, confidence, drop_intermediate=False)
    return {"fpr": fpr.tolist(), "tpr": tpr.tolist()}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    seed, corpus = int(sys.argv[1]), sys.argv[2]
    bins = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    high = float(sys.argv[4]) if len(sys.argv) > 4 else 0.8
    continuous = len(sys.argv) > 5 and sys.argv[5] == "continuous"
    confidence, correct = make_continuous_corpus(seed) if continuous else make_corpus(seed)
    with open(corpus, "w") as f:
        for c, y in zip(confidence, correct):
            f.write(json.dumps({"confidence": float(c), "correct": bool(y)}) + "\n")
    is_high = confidence >= high
    expected = {
        "seed": seed, "bins": bins, "high": high,
        "all": discrimination(confidence, correct, 0.95),
        "high_rows": discrimination(confidence[is_high], correct[is_high], 0.95),
        "calibration": calibration(confidence, correct, bins),
        "roc": roc(confidence, correct),
    }
    json.dump(expected, sys.stdout, indent=1, default=float, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
