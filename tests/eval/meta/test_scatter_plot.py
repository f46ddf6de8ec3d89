"""The judge-vs-human scatter: one point per distinct pair, sized by its count, r in the title."""

import math

import numpy as np
import pytest

from tribunal.eval.meta.scatter_plot import judge_human_scatter, paired_scores, pearson_text


def test_only_cells_both_scored_are_paired():
    judge, human = paired_scores([0.0, -1.0, np.nan, -5.0], [0.0, np.nan, -1.0, -6.0])
    assert judge.tolist() == [0.0, -5.0] and human.tolist() == [0.0, -6.0]
    with pytest.raises(ValueError, match="differ in length"):
        paired_scores([0.0], [0.0, 1.0])


def test_pearson_is_said_or_why_not():
    assert pearson_text(np.array([0.0, -1.0, -5.0]), np.array([0.0, -2.0, -6.0])).startswith("r = 0.99")
    assert "undefined" in pearson_text(np.array([0.0, 0.0]), np.array([0.0, -1.0]))
    assert "undefined" in pearson_text(np.array([0.0]), np.array([0.0]))


def test_identical_pairs_are_one_larger_point():
    figure = judge_human_scatter([0.0, 0.0, 0.0, -5.0], [0.0, 0.0, 0.0, -1.0])
    axes = figure.axes[0]
    points = axes.collections[0]
    assert len(points.get_offsets()) == 2  # (0, 0) three times, (-1, -5) once
    sizes = sorted(points.get_sizes().tolist())
    assert sizes[1] > sizes[0]
    assert "4 cells" in axes.get_title() and "r = 1.000" in axes.get_title()


def test_no_shared_cell_still_draws_a_titled_figure():
    figure = judge_human_scatter([math.nan], [0.0])
    assert "0 cells" in figure.axes[0].get_title() and not figure.axes[0].collections
