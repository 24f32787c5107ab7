#!/usr/bin/env bash
# Evaluate a scores file from the command line: write a CSV of the wallet demo's test-set
# predictions, then run `ranklens evaluate` on it. Run from the repository root; everything is
# written to out/.
set -euo pipefail
mkdir -p out
PY=${PY:-.venv/bin/python}
RANKLENS=${RANKLENS:-.venv/bin/ranklens}
"$PY" - <<'PYTHON'
import pandas as pd
from ranklens._demo import fit_wallet_models

y, predictions = fit_wallet_models()
frame = pd.DataFrame({"spend": y, **predictions})
frame["gbm_low"], frame["gbm_high"] = frame["gbm"] * 0.5, frame["gbm"] * 1.6
frame.to_csv("out/wallet_scores.csv", index=False)
print(f"wrote out/wallet_scores.csv ({len(frame)} rows)")
PYTHON
"$RANKLENS" evaluate out/wallet_scores.csv --target spend \
    --pred gbm --pred linear --pred random_forest \
    --lower gbm_low --upper gbm_high --alpha 0.1 \
    --events top:0.1 --budget 2500 --cost-per-target 25 --value-margin 0.1 \
    --bootstrap 500 --html out/wallet_report.html --json out/wallet_results.json
