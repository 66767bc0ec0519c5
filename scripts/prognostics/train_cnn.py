"""Candidate v4 (README, "Candidate v4"): a small 1-D CNN over the last 30 cycles of the 14 sensors,
with v3's history features joined at its dense layer, and its blend with v3.

Scored exactly like v3: the same GroupKFold folds over the same 17 731 training windows (rows of the
features CSV written by export-features.ts), out-of-fold RMSE of predictions clamped to [0, 125]
against the capped truth. Early stopping uses engines held out from each fold's training engines,
never the fold's validation engines. The test set is never read here.

    cp domain/prognostics/models/fd001-v3.json .data/prognostics/v3-rerun.json  # train.py reads v3's parameters there
    .tools/py-ml/bin/python scripts/prognostics/train.py --seeds 5 --reuse-rounds \\
        --out .data/prognostics/v3-rerun.json --save-oof .data/prognostics/v3-oof.csv  # v3's OOF
    .tools/py-ml/bin/python scripts/prognostics/train_cnn.py [--out domain/prognostics/models/fd001-cnn-v4.json] [--resume]

The two may run side by side: this one trains its fold and final networks first, then waits for v3's
out-of-fold file to choose the blend weight. --resume skips the folds, reusing the out-of-fold predictions
and early-stopping epochs a previous run saved under .data/prognostics/.

JAX (CPU) trains in float32; every prediction reported or exported is computed by `forward` below in
float64 numpy from the exported weights, the same arithmetic as domain/prognostics/cnn.ts.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import platform
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train import SEED, folds, load, sha256, sigma_by_prediction  # noqa: E402  (same loader and folds as v3)

REPO = Path(__file__).resolve().parents[2]
SENSORS = ["s2", "s3", "s4", "s7", "s8", "s9", "s11", "s12", "s13", "s14", "s15", "s17", "s20", "s21"]
WINDOW = 30
CONV = [(10, 12), (10, 12), (3, 1)]  # (kernel, filters), same padding, tanh
DENSE = 32
SEEDS = 3
MAX_EPOCHS = 40
PATIENCE = 6
BATCH = 256
LEARNING_RATE = 2e-3
CAP = 125.0
BLEND_GRID = [round(0.05 * k, 2) for k in range(21)]
MODEL_VERSION = "cmapss-fd001-blend-v4"


def side_names(names):
    """The history features and the age, in the features CSV's order."""
    return [n for n in names if "_hist_" in n or n == "age_cycles"]


def read_sensors(path: Path):
    """Per engine: cycle numbers and the 14 sensors, from the C-MAPSS text (columns: unit, cycle, 3 settings, s1..s21)."""
    engines: dict[int, list[list[float]]] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        cols = [float(c) for c in line.split()]
        engines.setdefault(int(cols[0]), []).append([cols[1]] + [cols[4 + int(s[1:])] for s in SENSORS])
    return {unit: np.array(rows) for unit, rows in engines.items()}


def windows_for(rows_engine, rows_cycle, sensors):
    """The last WINDOW cycles (sensors only) ending at each row's cycle."""
    out = np.empty((len(rows_engine), WINDOW, len(SENSORS)))
    for i, (unit, cycle) in enumerate(zip(rows_engine, rows_cycle)):
        data = sensors[unit]
        end = int(np.searchsorted(data[:, 0], cycle)) + 1
        if end < WINDOW or data[end - 1, 0] != cycle:
            raise ValueError(f"engine {unit} cycle {cycle}: no window")
        out[i] = data[end - WINDOW : end, 1:]
    return out


def init_params(key, n_side):
    params = []
    channels = len(SENSORS)
    for kernel, filters in CONV:
        key, sub = jax.random.split(key)
        limit = math.sqrt(6.0 / (kernel * channels + kernel * filters))  # Glorot uniform
        params.append((jax.random.uniform(sub, (kernel, channels, filters), minval=-limit, maxval=limit), jnp.zeros(filters)))
        channels = filters
    fan_in = WINDOW * channels + n_side
    for fan_out in (DENSE, 1):
        key, sub = jax.random.split(key)
        limit = math.sqrt(6.0 / (fan_in + fan_out))
        params.append((jax.random.uniform(sub, (fan_in, fan_out), minval=-limit, maxval=limit), jnp.zeros(fan_out)))
        fan_in = fan_out
    return params


def jax_forward(params, win, side):
    h = win
    for (kernel, _), (w, b) in zip(CONV, params[: len(CONV)]):
        left = (kernel - 1) // 2
        h = jax.lax.conv_general_dilated(h, w, (1,), [(left, kernel - 1 - left)], dimension_numbers=("NWC", "WIO", "NWC"))
        h = jnp.tanh(h + b)
    h = jnp.concatenate([h.reshape(h.shape[0], -1), side], axis=1)
    (wd, bd), (wo, bo) = params[len(CONV) :]
    h = jnp.tanh(h @ wd + bd)
    return (h @ wo + bo)[:, 0]


def forward(weights, win, side):
    """float64 numpy forward pass from exported weights (lists): the reference cnn.ts reproduces."""
    h = win
    for layer, (kernel, _) in zip(weights["conv"], CONV):
        w, b = np.array(layer["w"]), np.array(layer["b"])
        left = (kernel - 1) // 2
        padded = np.pad(h, ((0, 0), (left, kernel - 1 - left), (0, 0)))
        out = np.zeros((h.shape[0], WINDOW, w.shape[2]))
        for j in range(kernel):
            out += padded[:, j : j + WINDOW, :] @ w[j]
        h = np.tanh(out + b)
    h = np.concatenate([h.reshape(h.shape[0], -1), side], axis=1)
    h = np.tanh(h @ np.array(weights["dense"]["w"]) + np.array(weights["dense"]["b"]))
    return CAP * (h @ np.array(weights["output"]["w"]) + np.array(weights["output"]["b"]))[:, 0]


def export_weights(params):
    """float32 weights as Python floats (exact doubles), so numpy float64 and TypeScript read the same numbers."""
    as_list = lambda a: np.asarray(a, dtype=np.float32).astype(np.float64).tolist()  # noqa: E731
    conv = [{"w": as_list(w), "b": as_list(b)} for w, b in params[: len(CONV)]]
    (wd, bd), (wo, bo) = params[len(CONV) :]
    return {"conv": conv, "dense": {"w": as_list(wd), "b": as_list(bd)}, "output": {"w": as_list(wo), "b": as_list(bo)}}


def make_step(optimizer_lr):
    def loss(params, win, side, target):
        return jnp.mean((jax_forward(params, win, side) - target) ** 2)

    @jax.jit
    def step(params, m, v, t, win, side, target):
        grads = jax.grad(loss)(params, win, side, target)
        b1, b2, eps = 0.9, 0.999, 1e-7
        m = jax.tree.map(lambda a, g: b1 * a + (1 - b1) * g, m, grads)
        v = jax.tree.map(lambda a, g: b2 * a + (1 - b2) * g * g, v, grads)
        scale = optimizer_lr * jnp.sqrt(1 - b2**t) / (1 - b1**t)
        params = jax.tree.map(lambda p, a, b: p - scale * a / (jnp.sqrt(b) + eps), params, m, v)
        return params, m, v

    return step


STEP = make_step(LEARNING_RATE)
PREDICT = jax.jit(jax_forward)


def normalizer(win, side):
    flat = win.reshape(-1, win.shape[2])
    return {
        "window_mean": flat.mean(axis=0).tolist(),
        "window_std": flat.std(axis=0).tolist(),
        "side_mean": side.mean(axis=0).tolist(),
        "side_std": side.std(axis=0).tolist(),
    }


def normalize(norm, win, side):
    return (
        (win - np.array(norm["window_mean"])) / np.array(norm["window_std"]),
        (side - np.array(norm["side_mean"])) / np.array(norm["side_std"]),
    )


def train(win, side, y, seed, epochs=None, stop=None):
    """Adam on (RUL / CAP); with `stop` = (win, side, y) keeps the epoch with the lowest RMSE there."""
    key = jax.random.PRNGKey(seed)
    key, init_key = jax.random.split(key)
    params = init_params(init_key, side.shape[1])
    m = jax.tree.map(jnp.zeros_like, params)
    v = jax.tree.map(jnp.zeros_like, params)
    win32, side32, target = win.astype(np.float32), side.astype(np.float32), (y / CAP).astype(np.float32)
    rng = np.random.default_rng(seed)
    best = (math.inf, params, 0)
    t = 0
    for epoch in range(1, (epochs or MAX_EPOCHS) + 1):
        order = rng.permutation(len(y))
        for start in range(0, len(y), BATCH):
            idx = order[start : start + BATCH]
            t += 1
            params, m, v = STEP(params, m, v, t, win32[idx], side32[idx], target[idx])
        if stop is not None:
            pred = np.clip(CAP * np.asarray(PREDICT(params, stop[0].astype(np.float32), stop[1].astype(np.float32))), 0, CAP)
            rmse = float(np.sqrt(np.mean((pred - stop[2]) ** 2)))
            if rmse < best[0]:
                best = (rmse, params, epoch)
            elif epoch - best[2] >= PATIENCE:
                break
    return (best[1], best[2]) if stop is not None else (params, epochs)


def rmse(pred, y):
    return float(math.sqrt(np.mean((np.clip(pred, 0.0, CAP) - y) ** 2)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--features", default=str(REPO / ".data/prognostics/fd001-train-features.csv"))
    parser.add_argument("--train-data", default=str(REPO / "data/cmapss/train_FD001.txt"))
    parser.add_argument("--v3-oof", default=str(REPO / ".data/prognostics/v3-oof.csv"))
    parser.add_argument("--out", default=str(REPO / "domain/prognostics/models/fd001-cnn-v4.json"))
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--folds-only", type=int, default=0, help="debug: stop after this many folds")
    parser.add_argument("--resume", action="store_true", help="skip the folds: reuse the out-of-fold predictions and epochs they saved")
    parser.add_argument("--trained-on", default=dt.date.today().isoformat())
    args = parser.parse_args()

    features_csv = Path(args.features)
    names, x, y, groups = load(features_csv, CAP)
    with features_csv.open() as f:
        reader = csv.reader(f)
        next(reader)
        cycles = np.array([float(row[1]) for row in reader])
    side_cols = [names.index(n) for n in side_names(names)]
    side = x[:, side_cols]
    win = windows_for(groups, cycles, read_sensors(Path(args.train_data)))
    fold_list = folds(x, groups)
    seeds = [SEED + k for k in range(args.seeds)]

    oof = np.zeros(len(y))
    best_epochs = []
    cnn_oof_path, epochs_path = REPO / ".data/prognostics/cnn-oof.csv", REPO / ".data/prognostics/cnn-epochs.json"
    for f_index, (train_idx, valid_idx) in enumerate(fold_list):
        if args.resume:  # the folds' results saved by an earlier run of this script
            oof, best_epochs = np.loadtxt(cnn_oof_path), json.loads(epochs_path.read_text())
            break
        if args.folds_only and f_index >= args.folds_only:
            break
        engines = np.unique(groups[train_idx])
        stop_engines = engines[::8]  # about 10 of the fold's 80 training engines, for early stopping only
        stop_mask = np.isin(groups[train_idx], stop_engines)
        fit_idx, stop_idx = train_idx[~stop_mask], train_idx[stop_mask]
        norm = normalizer(win[fit_idx], side[fit_idx])
        w_fit, s_fit = normalize(norm, win[fit_idx], side[fit_idx])
        w_stop, s_stop = normalize(norm, win[stop_idx], side[stop_idx])
        w_val, s_val = normalize(norm, win[valid_idx], side[valid_idx])
        preds = []
        for seed in seeds:
            params, epoch = train(w_fit, s_fit, y[fit_idx], seed, stop=(w_stop, s_stop, y[stop_idx]))
            best_epochs.append(epoch)
            preds.append(forward(export_weights(params), w_val, s_val))
            print(f"fold {f_index} seed {seed}: epoch {epoch}, fold rmse {rmse(preds[-1], y[valid_idx]):.3f}", file=sys.stderr, flush=True)
        oof[valid_idx] = np.mean(preds, axis=0)
        print(f"fold {f_index}: mean of seeds rmse {rmse(oof[valid_idx], y[valid_idx]):.3f}", file=sys.stderr, flush=True)
    if args.folds_only:
        return

    cnn_rmse = rmse(oof, y)
    np.savetxt(cnn_oof_path, oof, fmt="%.17g")
    epochs_path.write_text(json.dumps(best_epochs) + "\n")
    print(f"cnn oof {cnn_rmse:.4f}", file=sys.stderr, flush=True)

    epochs = int(round(float(np.mean(best_epochs))))
    norm = normalizer(win, side)
    w_all, s_all = normalize(norm, win, side)
    members = [export_weights(train(w_all, s_all, y, seed, epochs=epochs)[0]) for seed in seeds]
    check_rows = [0, len(y) // 3, 2 * len(y) // 3, len(y) - 1]
    checks = [
        {
            "window": win[i].tolist(),
            "side": side[i].tolist(),
            "prediction": float(np.mean([forward(m, *normalize(norm, win[i : i + 1], side[i : i + 1]))[0] for m in members])),
        }
        for i in check_rows
    ]

    while not Path(args.v3_oof).exists():  # train.py --save-oof may still be running beside this
        time.sleep(30)
    with open(args.v3_oof, newline="") as f:
        v3 = np.array([float(r["oof"]) for r in csv.DictReader(f)])
    if len(v3) != len(y):
        raise ValueError("v3 OOF rows differ from the features CSV")
    v3_clamped = np.clip(v3, 0.0, CAP)
    blend = [(rmse(w * np.clip(oof, 0, CAP) + (1 - w) * v3_clamped, y), w) for w in BLEND_GRID]
    for score, w in blend:
        print(f"blend w={w:.2f}: oof rmse {score:.4f}", file=sys.stderr)
    blend_rmse, blend_w = min(blend)
    print(f"v3 oof {rmse(v3, y):.4f}  cnn oof {cnn_rmse:.4f}  best blend w={blend_w} oof {blend_rmse:.4f}", file=sys.stderr)

    blend_oof = blend_w * np.clip(oof, 0, CAP) + (1 - blend_w) * v3_clamped
    model = {
        "model_version": MODEL_VERSION,
        "description": "1-D CNN over the last 30 cycles of the 14 FD001 sensors with the history features at its "
        f"dense layer; mean of {len(seeds)} seeds; blended with the tree ensemble (README, Candidate v4)",
        "window": WINDOW,
        "sensors": SENSORS,
        "side_features": side_names(names),
        "normalization": norm,
        "layers": {"conv": [{"kernel": k, "filters": f} for k, f in CONV], "dense": DENSE, "activation": "tanh", "output_scale": CAP},
        "members": members,
        "blend_weight": blend_w,
        # The blend's held-out error spread replaces v3's in the served model (failure probability, confidence).
        "residuals": sigma_by_prediction(blend_oof, y, CAP),
        "training": {
            "trained_on": args.trained_on,
            "data_sha256": sha256(Path(args.train_data)),
            "features_sha256": sha256(features_csv),
            "learner": f"jax {jax.__version__} (CPU, float32), numpy {np.__version__}, python {platform.python_version()}",
            "seeds": seeds,
            "epochs": epochs,
            "fold_best_epochs": best_epochs,
            "batch": BATCH,
            "learning_rate": LEARNING_RATE,
            "cv": {
                "folds": 5,
                "grouped_by": "engine",
                "rmse_out_of_fold_clamped_cnn": round(cnn_rmse, 4),
                "rmse_out_of_fold_clamped_v3": round(rmse(v3, y), 4),
                "rmse_out_of_fold_clamped_blend": round(blend_rmse, 4),
                "blend_grid": {f"{w:.2f}": round(s, 4) for s, w in blend},
            },
        },
        "checks": checks,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model, separators=(",", ":")) + "\n")
    np.savetxt(REPO / ".data/prognostics/blend-oof.csv", np.column_stack([groups, y, oof, v3, blend_oof]), delimiter=",", fmt="%.10g")
    print(f"-> {out} ({out.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
