"""The WMT25 layout end to end, each step through the real command line, on a constructed archive:

``data fetch wmt25 --url`` (a tar.gz served on 127.0.0.1) -> ``mt evaluate`` (GEMBA-MQM over the
loopback LM server, a long multi-sentence segment in a two-document set) -> ``mt meta-eval --protocol
wmt25`` (``esa-human1`` gold) -> ``mt agreement`` (the judge against ``esa-human1`` and ``esa-human2``).

The judge's answers are scripted per translation, so every score, and every figure computed from
them, is known: the expected values below are computed here from the constructed data with the
reference packages (scipy, krippendorff) and tribunal's SPA definition.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.data.test_fetch import make_archive, served  # noqa: F401  (the fixture serves the archive)
from tests.support.cli import run_cli
from tests.support.loopback import loopback_server

from .helpers import KEY_ENV, SECRET

LP = "en-de_DE"
SYSTEMS = ("sysA", "sysB", "sysC")
DOCUMENTS = ["doc1", "doc1", "doc2", "doc2", "doc2", "doc2"]
SOURCES = [
    "The committee met on Monday.",
    "It approved the budget for next year.",
    "Heavy rain flooded the old harbour district overnight.",
    "Residents were moved to the sports hall.",
    # the long, multi-sentence segment: the third segment of doc2, with two segments of doc2 before it
    "Engineers inspected the sea wall at dawn. They found two cracks near the northern gate. "
    "Repairs will start next week, and the harbour road stays closed until then. "
    "The city asked drivers to use the ring road instead.",
    "Schools reopen on Thursday.",
]
# The judge's MQM score of each cell (segment x system), as GEMBA-MQM errors: score -(5 x major + minor).
JUDGE = np.array([[0, -1, -5], [-2, 0, -10], [-5, -6, -1], [0, -3, -7], [-11, -2, -6], [-1, -5, 0]], dtype=float)
ERRORS = {0: (0, 0), -1: (0, 1), -2: (0, 2), -3: (0, 3), -5: (1, 0), -6: (1, 1), -7: (1, 2), -10: (2, 0), -11: (2, 1)}
# ESA gold (0-100): every cell; a second annotation of segments 0-3 (None elsewhere).
HUMAN1 = np.array([[95, 85, 60], [80, 92, 40], [70, 75, 90], [98, 78, 55], [30, 88, 62], [84, 66, 97]], dtype=float)
HUMAN2 = np.array([[90, 88, 50], [85, 90, 55], [72, 70, 85], [95, 70, 65]] + [[np.nan] * 3] * 2)

# The two previous segments of the same document are shown as context: the test asserts that they reach
# the prompt of the long segment and that doc1's segments do not.
CONTEXT: list[str] = ["--context", "2"]
METRIC = "GEMBA-MQM-ctx2"


def translation(segment: int, system: str) -> str:
    words = {"sysA": "Laut", "sysB": "Gemaess", "sysC": "Nach"}[system]
    base = f"{words} Bericht {segment}: " + " ".join(f"Satz{segment}-{k}." for k in range(4 if segment == 4 else 1))
    return base


def _jsonl(field: str, values: list[str], docs: bool = False) -> bytes:
    rows = [{field: v, **({"doc_id": d} if docs else {})} for v, d in zip(values, DOCUMENTS)]
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _seg(matrix: np.ndarray) -> bytes:
    return "".join(f"{s}\t{'None' if np.isnan(v) else v}\n" for k, s in enumerate(SYSTEMS) for v in matrix[:, k]).encode()


def wmt25_archive() -> dict[str, bytes]:
    top = f"mt-metrics-eval-v2/wmt25"
    files = {
        f"sources/{LP}.jsonl": _jsonl("source", SOURCES, docs=True),
        f"references/{LP}.refA.jsonl": _jsonl("target", [f"Referenz {i}." for i in range(len(SOURCES))]),
        f"documents/{LP}.docs": "".join(f"general\t{d}\n" for d in DOCUMENTS).encode(),
        f"human-scores/{LP}.esa-human1.seg.score": _seg(HUMAN1),
        f"human-scores/{LP}.esa-human1.sys.score": "".join(
            f"{s}\t{HUMAN1[:, k].mean()}\n" for k, s in enumerate(SYSTEMS)).encode(),
        f"human-scores/{LP}.esa-human2.seg.score": _seg(HUMAN2),
    }
    for system in SYSTEMS:
        files[f"system-outputs/{LP}/{system}.jsonl"] = _jsonl(
            "hypothesis", [translation(i, system) for i in range(len(SOURCES))])
    return {f"{top}/{path}": data for path, data in files.items()} | {"mt-metrics-eval-v2/wmt24/sources/x.txt": b"x\n"}


SCORE_OF = {translation(i, s): JUDGE[i, k] for i in range(len(SOURCES)) for k, s in enumerate(SYSTEMS)}


def scripted_gemba(name: str, inputs: dict) -> dict:
    """GEMBA-MQM's answer for a translation: its designed majors and minors, on its first and last words."""
    if name != "GembaMQM":
        raise LookupError(name)
    text = str(inputs["translation"])
    majors, minors = ERRORS[int(SCORE_OF[text])]
    words = text.split()
    error = lambda severity, word: {"span": word, "category": "accuracy", "subcategory": "mistranslation",  # noqa: E731
                                    "severity": severity, "is_source_error": False}
    return {"errors": [error("major", words[0])] * majors + [error("minor", words[-1])] * minors}


def _metric(outcome, prefix: str) -> str:
    return next(line for line in outcome.out.splitlines() if line.strip().startswith(prefix))


@pytest.mark.slow
def test_wmt25_fetch_evaluate_meta_eval_agreement(tmp_path, served, capsys, monkeypatch, mlflow_store):  # noqa: F811
    from mlflow.tracking import MlflowClient
    from scipy.stats import kendalltau, pearsonr

    folder, url = served
    make_archive(folder / "mtme.tgz", wmt25_archive())
    dest = tmp_path / "data"

    # 1. data fetch: only wmt25 is unpacked, in the layout the readers expect.
    fetched = run_cli(capsys, "data", "fetch", "wmt25", "--dest", dest, "--url", f"{url}/mtme.tgz")
    assert fetched.status == 0, fetched.err
    data = dest / "wmt25"
    assert sorted(p.name for p in dest.iterdir()) == ["wmt25"] and (data / "documents" / f"{LP}.docs").is_file()

    # 2. mt evaluate over the loopback LM server.
    monkeypatch.setenv(KEY_ENV, SECRET)
    out = tmp_path / "judge"
    with loopback_server(scripted_gemba) as (api_base, state):
        evaluated = run_cli(capsys, "mt", "evaluate", "--data", data, "--lp", LP, "--program", "gemba-mqm",
                            "--lm", "openai/judge", "--api-base", api_base, "--api-key-env", KEY_ENV, "--no-cache",
                            *CONTEXT, "--out", out, "--tracking-uri", mlflow_store)
    assert evaluated.status == 0, evaluated.err
    assert "scored 18, unscored 0" in evaluated.out and len(state.hits) == 18
    long_text = translation(4, "sysA")
    assert long_text.count(".") == 4 and any(long_text in h[2].get("translation", "") for h in state.hits)
    if CONTEXT:  # the two previous segments of doc2 reach the long segment's prompt; doc1's do not
        body = next(b.decode() for b in state.bodies if json.dumps(long_text)[1:-1] in b.decode())
        assert SOURCES[2] in body and SOURCES[3] in body and SOURCES[1] not in body
    seg_file = out / "metric-scores" / LP / f"{METRIC}-src.seg.score"
    written = [float(line.split("\t")[1]) for line in seg_file.read_text().splitlines()]
    assert np.array_equal(np.array(written).reshape(3, 6).T, JUDGE)  # every designed score, cell by cell

    # The human ceiling in mt evaluate's summary: esa-human1 vs esa-human2 on the 12 cells both rated.
    h1, h2, judge = HUMAN1[:4].ravel(), HUMAN2[:4].ravel(), JUDGE[:4].ravel()
    raters_r = pearsonr(h1, h2).statistic
    judge_r = (pearsonr(judge, h1).statistic + pearsonr(judge, h2).statistic) / 2
    assert "human ceiling: 2 raters on the 12 judged items" in evaluated.out
    line = _metric(evaluated, "pearson:")
    assert f"raters' mean pairwise {raters_r:.4f} [" in line and f"judge's mean {judge_r:.4f} [" in line
    assert f"share {judge_r / raters_r:.4f} [" in line
    client = MlflowClient(tracking_uri=mlflow_store)
    run_id = evaluated.out.split("MLflow run ")[1].split()[0]
    logged = client.get_run(run_id).data.metrics
    assert logged["agreement.esa_human1_vs_esa_human2.pearson"] == pytest.approx(raters_r)
    assert "agreement.tsv" in {a.path for a in client.list_artifacts(run_id)}

    # 3. meta-eval under the WMT25 protocol: esa-human1 is the gold (esa-human2 would order segment 2 differently).
    table = tmp_path / "meta.tsv"
    meta = run_cli(capsys, "mt", "meta-eval", "--data", data, "--protocol", "wmt25", "--scores", out / "metric-scores",
                   "--output", table, "--no-track")
    assert meta.status == 0, meta.err
    header, *rows = [r.split("\t") for r in table.read_text().splitlines()]
    row = dict(zip(header, next(r for r in rows if r[0] == METRIC)))
    # acc_eq by hand: the judge orders every within-segment pair of systems as esa-human1 does, except
    # sysA/sysB of segment 2 (judge -5 > -6, gold 70 < 75); no ties on either side, so epsilon 0 is best:
    # per-segment accuracies 1, 1, 2/3, 1, 1, 1 -> mean 17/18.
    assert float(row[f"{LP}_seg_acc_eq"]) == pytest.approx(17 / 18)
    from tribunal.eval.meta.spa import spa

    assert float(row[f"{LP}_sys_spa"]) == pytest.approx(spa(HUMAN1, JUDGE), abs=1e-12)
    assert float(row["avg_corr"]) == pytest.approx((17 / 18 + spa(HUMAN1, JUDGE)) / 2, abs=1e-12)

    # 4. mt agreement: the judge against esa-human1 and esa-human2 (found by default), tracked.
    output = tmp_path / "agreement.tsv"
    agreed = run_cli(capsys, "mt", "agreement", "--data", data, "--lp", LP, "--judge", out, "--samples", "300",
                     "--seed", "3", "--output", output, "--tracking-uri", mlflow_store)
    assert agreed.status == 0, agreed.err
    assert "agreement on 12 items rated by 2 raters" in agreed.out
    header, *rows = [r.split("\t") for r in output.read_text().splitlines()]
    by_label = {r[0]: dict(zip(header, r)) for r in rows}
    versus = by_label[f"{METRIC}-src vs esa-human2"]
    assert float(versus["pearson"]) == pytest.approx(pearsonr(judge, h2).statistic)
    assert float(versus["kendall_tau_b"]) == pytest.approx(kendalltau(judge, h2).statistic)
    import krippendorff

    # Interval alpha on MQM's scale (ESA enters as (esa - 100) / 4); between the raters the mapping changes nothing.
    expected = krippendorff.alpha(reliability_data=np.vstack([judge, (h2 - 100) / 4]), level_of_measurement="interval")
    assert float(versus["alpha_interval"]) == pytest.approx(expected)
    raters = by_label["esa-human1 vs esa-human2"]
    assert float(raters["alpha_interval"]) == pytest.approx(
        krippendorff.alpha(reliability_data=np.vstack([h1, h2]), level_of_measurement="interval"))
    share = by_label["judge / raters mean pairwise"]
    assert float(share["pearson"]) == pytest.approx(judge_r / raters_r)
    assert float(share["pearson_low"]) <= float(share["pearson_high"])
    run = client.get_run(agreed.out.split("MLflow run ")[1].split(";")[0])
    assert run.data.params["raters"] == "esa-human1,esa-human2" and run.data.params["judge_scale"] == "mqm"
    assert run.data.metrics["agreement.judge_vs_esa_human2.pearson"] == pytest.approx(float(versus["pearson"]))
