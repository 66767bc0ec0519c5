"""Train the FD001 remaining-useful-life model and export it as JSON for domain/prognostics.

Reproducible: fixed seeds, deterministic LightGBM, folds grouped by engine and taken in engine order.
The features come from the TypeScript extractor (scripts/prognostics/export-features.ts), so the model
is trained on exactly the numbers the endpoint computes. The test set is never read here.

    node -r ./scripts/prognostics/register-ts.cjs scripts/prognostics/export-features.ts
    .tools/py-ml/bin/python scripts/prognostics/train.py [--tune] [--trained-on YYYY-MM-DD]

--tune runs the grouped cross-validation grid search and trains with its winner; without it the
parameters already stored in the output JSON (or the defaults below) are cross-validated again and used.
The exported model is the average of --seeds boosters (same data, parameters and rounds, seeds SEED + k):
their trees are concatenated with every leaf value scaled by 1/seeds, so the evaluator's plain sum of
trees is the average. The out-of-fold RMSE of the single-seed model (v2) and of the average are both
printed, on the same folds.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import itertools
import json
import math
import platform
import sys
from pathlib import Path

import lightgbm as lgb
import numpy as np
import sklearn
from sklearn.model_selection import GroupKFold

REPO = Path(__file__).resolve().parents[2]
MODEL_VERSION = "cmapss-fd001-gbt-v2"
ENSEMBLE_MODEL_VERSION = "cmapss-fd001-gbt-v3"  # adopted: its CV beat v2 (README)
N_FOLDS = 5
SEED = 20080101
# Candidate v3 averages 5 models that differ only in their seed (SEED, SEED + 1, ...); member 0 is v2.
MAX_ROUNDS = 4000
EARLY_STOP = 200

BASE_PARAMS = {
    "objective": "regression",
    "metric": "rmse",
    "learning_rate": 0.02,
    "num_leaves": 15,
    "min_data_in_leaf": 100,
    "feature_fraction": 0.7,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "max_bin": 255,
    "seed": SEED,
    "deterministic": True,
    "force_col_wise": True,
    "num_threads": 2,
    "verbosity": -1,
}

GRID = {
    "num_leaves": [7, 15, 31],
    "min_data_in_leaf": [20, 50, 200],
    "feature_fraction": [0.3, 0.5, 0.8],
    "lambda_l2": [0.0, 10.0],
}

# Predicted-RUL bins (cycles) over which the held-out error spread is measured.
SIGMA_BIN_EDGES = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 126]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load(features_csv: Path, cap: float):
    """Python's float() parses the exporter's shortest round-trip text back to the identical double."""
    with features_csv.open(newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    if header[:3] != ["engine", "cycle", "rul"]:
        raise ValueError(f"unexpected header {header[:3]}")
    names = header[3:]
    x = np.array([[float(v) for v in row[3:]] for row in body], dtype=np.float64)
    y = np.minimum(np.array([float(row[2]) for row in body]), cap)
    groups = np.array([int(row[0]) for row in body])
    return names, x, y, groups


def folds(x, groups):
    return list(GroupKFold(n_splits=N_FOLDS).split(x, groups=groups))


def cross_validate(params, x, y, names, fold_list):
    data = lgb.Dataset(x, label=y, feature_name=names, free_raw_data=False)
    result = lgb.cv(
        params,
        data,
        num_boost_round=MAX_ROUNDS,
        folds=fold_list,
        callbacks=[lgb.early_stopping(EARLY_STOP, verbose=False)],
        seed=SEED,
    )
    rmse = result["valid rmse-mean"]
    return len(rmse), float(rmse[-1])


def out_of_fold(params, rounds, x, y, names, fold_list):
    """Predictions of each training row by a model that never saw its engine."""
    oof = np.empty_like(y)
    for train_idx, valid_idx in fold_list:
        booster = lgb.train(params, lgb.Dataset(x[train_idx], label=y[train_idx], feature_name=names), rounds)
        oof[valid_idx] = booster.predict(x[valid_idx])
    return oof


def sigma_by_prediction(pred, truth, cap):
    """RMS of (capped truth - prediction) per predicted-RUL bin: the error spread the endpoint uses."""
    pred = np.clip(pred, 0.0, cap)
    centers, sigmas, counts = [], [], []
    for lo, hi in zip(SIGMA_BIN_EDGES[:-1], SIGMA_BIN_EDGES[1:]):
        mask = (pred >= lo) & (pred < hi)
        if mask.sum() < 30:
            continue
        err = truth[mask] - pred[mask]
        centers.append(round(float(pred[mask].mean()), 3))
        sigmas.append(round(float(math.sqrt(np.mean(err**2))), 3))
        counts.append(int(mask.sum()))
    return {"pred_centers": centers, "sigma": sigmas, "counts": counts}


def flatten_tree(root):
    """LightGBM's nested tree -> flat arrays. Children >= 0 are split nodes, < 0 are leaves (~leaf)."""
    split_feature, threshold, left, right, leaf_value = [], [], [], [], []

    def visit(node):
        if "leaf_value" in node:
            leaf_value.append(node["leaf_value"])
            return -len(leaf_value)  # == ~(index of the leaf)
        if node["decision_type"] != "<=" or node.get("missing_type", "None") not in ("None", None):
            raise ValueError(f"unsupported split {node}")
        index = len(split_feature)
        split_feature.append(node["split_feature"])
        threshold.append(node["threshold"])
        left.append(None)
        right.append(None)
        left[index] = visit(node["left_child"])
        right[index] = visit(node["right_child"])
        return index

    visit(root)
    return {"split_feature": split_feature, "threshold": threshold, "left": left, "right": right, "leaf_value": leaf_value}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", default=str(REPO / ".data/prognostics/fd001-train-features.csv"))
    parser.add_argument("--train-data", default=str(REPO / "data/cmapss/train_FD001.txt"))
    parser.add_argument("--out", default=str(REPO / "domain/prognostics/models/fd001-v3.json"))
    parser.add_argument("--cap", type=float, default=125.0)
    parser.add_argument("--tune", action="store_true")
    parser.add_argument("--seeds", type=int, default=5, help="5: v3, the served model (seed ensemble); 1: v2")
    parser.add_argument(
        "--reuse-rounds", action="store_true", help="take rounds and CV mean from the output JSON (skips lgb.cv)"
    )
    parser.add_argument("--trained-on", default=dt.date.today().isoformat())
    parser.add_argument(
        "--save-oof",
        help="write the out-of-fold predictions (engine,cycle,rul,oof) to this CSV and stop: train_cnn.py blends them",
    )
    args = parser.parse_args()

    features_csv = Path(args.features)
    spec = json.loads(Path(f"{features_csv}.spec.json").read_text())
    spec.pop("source", None)
    names, x, y, groups = load(features_csv, args.cap)
    fold_list = folds(x, groups)
    print(f"{len(y)} rows, {len(names)} features, {len(np.unique(groups))} engines", file=sys.stderr)

    params = dict(BASE_PARAMS)
    out_path = Path(args.out)
    if args.tune:
        trials = []
        keys = list(GRID)
        for values in itertools.product(*(GRID[k] for k in keys)):
            candidate = {**BASE_PARAMS, **dict(zip(keys, values))}
            rounds, rmse = cross_validate(candidate, x, y, names, fold_list)
            trials.append((rmse, rounds, dict(zip(keys, values))))
            print(f"cv rmse={rmse:.3f} rounds={rounds} {dict(zip(keys, values))}", file=sys.stderr)
        trials.sort(key=lambda t: t[0])
        params.update(trials[0][2])
    elif out_path.exists():
        params.update(json.loads(out_path.read_text())["training"]["params"])

    if args.reuse_rounds and not args.tune:
        stored = json.loads(out_path.read_text())["training"]
        rounds, cv_rmse = stored["rounds"], stored["cv"]["rmse_mean_of_folds"]
    else:
        rounds, cv_rmse = cross_validate(params, x, y, names, fold_list)
    print(f"rounds={rounds}", file=sys.stderr)
    member_params = [{**params, "seed": SEED + k} for k in range(args.seeds)]

    def clamped_rmse(pred):
        return float(math.sqrt(np.mean((np.clip(pred, 0.0, args.cap) - y) ** 2)))

    member_oof = []
    for p in member_params:
        member_oof.append(out_of_fold(p, rounds, x, y, names, fold_list))
        running = clamped_rmse(np.mean(member_oof, axis=0))
        print(
            f"seed {p['seed']}: oof_rmse={clamped_rmse(member_oof[-1]):.4f}, average of {len(member_oof)}: {running:.4f}",
            file=sys.stderr,
            flush=True,
        )
    oof = np.mean(member_oof, axis=0)
    if args.save_oof:
        with open(args.save_oof, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["engine", "row", "rul_capped", "oof"])
            for i in range(len(y)):
                writer.writerow([int(groups[i]), i, repr(float(y[i])), repr(float(oof[i]))])
        print(f"oof_rmse={clamped_rmse(oof):.4f} -> {args.save_oof}", file=sys.stderr)
        return
    single_oof_rmse = clamped_rmse(member_oof[0])
    oof_rmse = clamped_rmse(oof)
    print(
        f"chosen {params} rounds={rounds} cv_rmse={cv_rmse:.3f} single-seed oof_rmse={single_oof_rmse:.4f} "
        f"average of {args.seeds} oof_rmse={oof_rmse:.4f}",
        file=sys.stderr,
    )

    boosters = [lgb.train(p, lgb.Dataset(x, label=y, feature_name=names), rounds) for p in member_params]
    trees = []
    for booster in boosters:
        dump = booster.dump_model()
        if dump["feature_names"] != names:
            raise ValueError("feature names changed in the booster")
        for t in dump["tree_info"]:
            tree = flatten_tree(t["tree_structure"])
            tree["leaf_value"] = [v / args.seeds for v in tree["leaf_value"]]
            trees.append(tree)
    check_rows = [0, len(y) // 2, len(y) - 1]
    checks = [
        {
            "features": x[i].tolist(),
            "prediction": float(np.mean([b.predict(x[i : i + 1])[0] for b in boosters])),
        }
        for i in check_rows
    ]

    model = {
        "model_version": MODEL_VERSION if args.seeds == 1 else ENSEMBLE_MODEL_VERSION,
        "description": "LightGBM gradient-boosted regression trees on 30-cycle window and whole-history features, "
        "RUL capped at 125 cycles, trained on C-MAPSS FD001 (NASA, PHM 2008)"
        + ("" if args.seeds == 1 else f"; average of {args.seeds} models differing only in their seed"),
        "rul_cap": args.cap,
        "feature_spec": spec,
        "features": names,
        "feature_ranges": {"min": x.min(axis=0).tolist(), "max": x.max(axis=0).tolist()},
        "residuals": sigma_by_prediction(oof, y, args.cap),
        "training": {
            "trained_on": args.trained_on,
            "data": {
                "source": "C-MAPSS FD001 train_FD001.txt (Saxena et al., PHM 2008; data published 2008)",
                "sha256": sha256(Path(args.train_data)),
                "features_sha256": sha256(features_csv),
                "rows": int(len(y)),
                "engines": int(len(np.unique(groups))),
            },
            "learner": f"lightgbm {lgb.__version__} (scikit-learn {sklearn.__version__} GroupKFold, "
            f"numpy {np.__version__}, python {platform.python_version()})",
            "params": {k: params[k] for k in ("learning_rate", *GRID.keys())},
            "all_params": params,
            "rounds": rounds,
            "ensemble": {
                "seeds": [p["seed"] for p in member_params],
                "combination": "mean (trees concatenated, leaf values scaled by 1/seeds)",
            },
            "cv": {
                "folds": N_FOLDS,
                "grouped_by": "engine",
                "rmse_mean_of_folds": round(cv_rmse, 4),
                "rmse_out_of_fold_clamped": round(oof_rmse, 4),
                "rmse_out_of_fold_clamped_single_seed": round(single_oof_rmse, 4),
            },
        },
        "checks": checks,
        "trees": trees,
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(model, separators=(",", ":")) + "\n")
    print(f"{len(trees)} trees -> {out_path} ({out_path.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
