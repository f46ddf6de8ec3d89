"""``runs compare`` of two mt evaluate runs writes and logs compare.html; ``runs view RUN_ID`` fetches a run's page."""

from __future__ import annotations

from typer.testing import CliRunner

from tribunal.cli import app
from tribunal.eval.report.render import read_page_data
from tribunal.eval.tracking.mlflow_run import TrackingSettings, mlflow_client
from tests.support.mqm_fakes import synthetic_judge

from .runs import evaluate, markup_judge, write_markup_data


def test_compare_writes_the_side_by_side_page_and_view_fetches_pages(tmp_path, monkeypatch):
    store = tmp_path / "store"
    store.mkdir()
    uri = f"sqlite:///{store}/mlflow.db"
    tracking = TrackingSettings(uri=uri, experiment="pages")
    data = write_markup_data(tmp_path / "data")
    first = evaluate(data, "en-de", tmp_path / "a", "gemba-mqm", markup_judge, tracking).run_id
    second = evaluate(data, "en-de", tmp_path / "b", "gemba-mqm", synthetic_judge, tracking).run_id
    out = tmp_path / "compare"
    result = CliRunner().invoke(app, ["runs", "compare", first, second, "--label", "untuned", "--label", "tuned",
                                      "--out", str(out), "--tracking-uri", uri])
    assert result.exit_code == 0, result.output
    assert f"page: {out / 'compare.html'}" in result.output
    page = read_page_data(out / "compare.html")
    assert [h["label"] for h in page["heads"]] == ["untuned", "tuned"] and len(page["rows"]) == 8
    comparison = mlflow_client(tracking).search_runs(
        [mlflow_client(tracking).get_experiment_by_name("tribunal-comparisons").experiment_id])[0]
    assert "compare.html" in {a.path for a in mlflow_client(tracking).list_artifacts(comparison.info.run_id)}
    bad = CliRunner().invoke(app, ["runs", "compare", first, second, "--label", "one", "--out", str(out),
                                   "--tracking-uri", uri, "--no-track"])
    assert bad.exit_code != 0 and "--label: two names" in str(bad.exception)

    fetched = CliRunner().invoke(app, ["runs", "view", first, "--tracking-uri", uri, "--out", str(tmp_path / "view")])
    assert fetched.exit_code == 0, fetched.output
    assert fetched.output.strip() == str(tmp_path / "view" / first / "report.html")
    assert read_page_data(tmp_path / "view" / first / "report.html")["heads"][0]["run_id"] == first

    served = []
    monkeypatch.setattr("tribunal.cli.page_server.serve_page", lambda page, port, announce: served.append((page, port)))
    result = CliRunner().invoke(app, ["runs", "view", str(out), "--serve", "--port", "8765"])
    assert result.exit_code == 0 and served == [(out / "compare.html", 8765)]
