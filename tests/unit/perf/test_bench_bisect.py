"""The bisect benchmark's figure: the median of its rounds' paired ratios, and the round it names."""

from __future__ import annotations

from tests.perf.bench_bisect import GOAL_RATIO, Bisected, Round, _put_back_row, _row


def _bisected(seconds: float, first_bad: str = "c0ffee00") -> Bisected:
    return Bisected(commits=8, builds=3, llvm_builds=1, seconds=seconds, first_bad=first_bad)


def test_the_figure_is_the_median_of_paired_ratios_and_names_its_round() -> None:
    pairs = [(_bisected(18.0), _bisected(10.0)), (_bisected(12.0), _bisected(10.0)), (_bisected(30.0), _bisected(20.0))]
    row = _row("across an LLVM bump", pairs, "1", True)
    # Ratios 1.80, 1.20 and 1.50: the median pairs tritondev's 30 s with the hand's 20 s, not 18 s with 10 s.
    measured = str(row["measured"])
    assert measured.startswith("1.50 (1.80, 1.20, 1.50); its round: tritondev 3 builds, 1 LLVM builds, 30.0 s")
    assert "hand 3 builds, 1 LLVM builds, 20.0 s" in measured
    assert GOAL_RATIO == 1.5 and row["pass"] is True  # at the goal passes
    assert "median of 3 rounds" in str(row["metric"])


def test_one_slow_round_does_not_fail_the_figure_but_two_do() -> None:
    fast, slow = (_bisected(12.0), _bisected(10.0)), (_bisected(20.0), _bisected(10.0))
    assert _row("x", [fast, slow, fast], "1", True)["pass"] is True
    assert _row("x", [slow, fast, slow], "1", True)["pass"] is False


def test_any_round_naming_another_commit_or_building_llvm_wrongly_fails_it() -> None:
    good = (_bisected(12.0), _bisected(10.0))
    other = (_bisected(12.0, "deadbeef"), _bisected(10.0))
    assert _row("x", [good, other, good], "1", True)["pass"] is False
    assert _row("x", [good, good, good], "1", False)["pass"] is False


def test_the_reference_row_adds_the_hands_rebuild_of_the_starting_commit() -> None:
    def round_(tool: float, hand: float, put_back: float) -> Round:
        constant = _bisected(10.0)
        return Round(constant, _bisected(tool), constant, _bisected(hand), put_back)

    row = _put_back_row([round_(16.0, 10.0, 6.0), round_(15.0, 10.0, 5.0), round_(18.0, 10.0, 2.0)])
    # 16 / 16, 15 / 15 and 18 / 12: the median is 1.00, the median rebuild 5.0 s.
    assert row["measured"] == "1.00 (1.00, 1.00, 1.50); the hand's rebuild 5.0 s"
    assert row["goal"] == "- (reference)" and row["pass"] is True
