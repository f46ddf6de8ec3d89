import numpy as np
import pytest

from tribunal.eval.meta.distribution import compare_distributions, distribution_figure


def test_distribution_summary_and_distances():
    judge = np.array([0.0, -1.0, -5.0, np.nan])
    human = np.array([0.0, 0.0, -6.0, -1.0])
    result = compare_distributions(judge, human)
    assert result.cells == 3
    assert result.summary.loc["share_zero", "judge"] == pytest.approx(1 / 3)
    assert result.summary.loc["share_zero", "human"] == pytest.approx(2 / 3)
    # sorted judge (-5,-1,0) vs human (-6,0,0): mean |diff| = (1+1+0)/3
    assert result.wasserstein == pytest.approx(2 / 3)


def test_distribution_needs_shared_cells():
    with pytest.raises(ValueError, match="no cell"):
        compare_distributions(np.array([np.nan]), np.array([1.0]))


def test_figure_has_two_histograms():
    figure = distribution_figure(np.array([0.0, -1.0, -5.0]), np.array([0.0, -2.0, -5.0]))
    assert len(figure.axes[0].patches) == 50
