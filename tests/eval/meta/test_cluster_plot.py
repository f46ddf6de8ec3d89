"""The significance-cluster plot: a panel per ranked column, bars coloured by cluster, best on top."""

import numpy as np
import pytest

from tribunal.eval.meta.cluster_plot import cluster_colour, clusters_figure
from tribunal.eval.meta.clusters import Ranking


def _ranking(column: str, ranks: list[int]) -> Ranking:
    metrics = [f"M{i}" for i in range(len(ranks))]
    values = np.linspace(0.9, 0.5, len(ranks))
    return Ranking(column, metrics, values, np.zeros((len(ranks), len(ranks))), ranks)


def test_one_panel_per_column_and_bars_coloured_by_cluster():
    figure = clusters_figure({"avg-corr": _ranking("avg-corr", [1, 1, 2]), "en-de": _ranking("en-de", [1, 2, 2])})
    visible = [axes for axes in figure.axes if axes.get_visible()]
    assert len(visible) == 2
    first = visible[0]
    bars = first.patches
    assert len(bars) == 3
    colours = [bar.get_facecolor() for bar in bars]
    assert colours[0] == colours[1] != colours[2]  # clusters 1, 1, 2
    at = dict(zip(first.get_yticks(), (tick.get_text() for tick in first.get_yticklabels())))
    assert at[max(at)] == "M0"  # the best at the top
    assert first.get_title() == "avg-corr: 2 cluster(s)"
    assert len(first.lines) == 1  # one line between the two clusters


def test_an_odd_number_of_columns_hides_the_spare_panel():
    figure = clusters_figure({c: _ranking(c, [1, 2]) for c in ("a", "b", "c")})
    assert sum(axes.get_visible() for axes in figure.axes) == 3


def test_no_ranking_is_refused_and_colours_repeat():
    with pytest.raises(ValueError, match="--significance"):
        clusters_figure({})
    assert cluster_colour(1) == cluster_colour(8)


def test_a_ranked_meta_evaluation_logs_the_plot(wmt23_root, tmp_path, empty_sqlite_store):
    import shutil

    from mlflow.tracking import MlflowClient

    from tribunal.eval.meta.meta_eval_job import run_meta_eval
    from tribunal.eval.tracking.mlflow_run import TrackingSettings

    store = tmp_path / "mlflow.db"
    shutil.copy(empty_sqlite_store, store)
    settings = TrackingSettings(uri=f"sqlite:///{store}", experiment="clusters")
    result = run_meta_eval(wmt23_root, ["BLEU", "COMET", "chrF"], ["zh-en"], settings, samples=20)
    assert result.rankings
    logged = {a.path for a in MlflowClient(settings.uri).list_artifacts(result.run_id)}
    assert "significance_clusters.png" in logged
    unranked = run_meta_eval(wmt23_root, ["BLEU", "COMET"], ["zh-en"], settings)
    assert "significance_clusters.png" not in {a.path for a in MlflowClient(settings.uri).list_artifacts(unranked.run_id)}
