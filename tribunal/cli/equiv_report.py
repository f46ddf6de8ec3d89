"""The text ``tribunal equiv audit`` prints: the audit and agreement tables, each rule's timing and
calls, calibrated thresholds, cascade routing and savings, spend and the signature."""

from __future__ import annotations

from tribunal.cli.cap_options import cap_lines
from tribunal.cli.console import line
from tribunal.cli.numbers import count, number, seconds


def print_audit(console, summary) -> None:
    """The audit and agreement tables (fitted to the console), timings, calls, spend and the signature.

    Rendered from the :class:`~tribunal.core.run_summary.RunSummary` alone (what ``summary.json`` holds), so
    the file read back renders the same text.
    """
    from tribunal.cli.tables import frame_table, print_wide  # startup: kept out of `tribunal --help`

    d = summary.details
    suite = d["suite"]
    say = lambda text: line(console, text)  # noqa: E731
    if d["table"]:
        title = f"Share judged 'different' per perturbation kind — suite {suite['name']} ({suite['pairs']} pairs, hash {suite['hash']})"
        table = _frame(d["table"])
        for column in ("unscored", "calls"):  # counts, not shares
            table[column] = [count(v) for v in table[column]]
        print_wide(console, frame_table(table, title, keys=["rule"], cell=_fmt))
    if d["agreement"]:
        columns = ["rule_a", "rule_b", "both_scored", "raw", "kappa", "alpha", "note"]
        agreement = _frame(d["agreement"])[columns].copy()
        agreement["both_scored"] = [count(v) for v in agreement["both_scored"]]
        print_wide(console, frame_table(agreement, "Agreement between rules (first repeat)",
                                        keys=["rule_a", "rule_b"], cell=_fmt))
    for audit in d["rules"]:
        say(_rule_line(audit["label"], audit["seconds"], audit["summary"]))
    for audit in d["rules"]:
        params = audit["params"]
        if "threshold_rule" in params:
            peers = {k.removeprefix("calibration_rate_"): v for k, v in params.items()
                     if k.startswith("calibration_rate_")}
            source = ", ".join(f"{k} {number(v)}" for k, v in peers.items()) or "given"
            say(f"{audit['label']}: calibrated threshold {number(params['threshold'])} "
                f"(target same-pair rate {number(params['calibration_target_rate'])}, {source}; "
                f"achieved {number(params['calibration_achieved_rate'])})")
    for audit in d["rules"]:
        if audit["routes"] is not None:
            print_wide(console, frame_table(_frame(audit["routes"]), f"{audit['label']}: decided by the screen "
                                            "alone, sent to the judge, wrong among the screened (first repeat)",
                                            keys=["kind"], cell=_fmt))
    for row in d["cascade"]:
        if row["calls_judge_alone"] is not None:
            say(f"{row['rule']}: {count(row['calls'])} LM calls against {count(row['calls_judge_alone'])} for the "
                f"judge alone (saved {count(row['calls_saved'])}); verdicts agree with the judge alone on "
                f"{number(row['agreement_with_judge_alone'])} of pairs")
    items = summary.items
    resumed = sum(int(a["summary"].get("resumed", 0)) for a in d["rules"])
    say(f"pair judgments (pairs x repeats x rules): {count(items.total)}; scored {count(items.scored)}, unscored "
        f"{count(items.unscored)}" + (f", left {count(items.left)}" if items.left else "")
        + (f"; {count(resumed)} read back from the journal (not paid again)" if resumed else ""))
    if summary.calls or summary.roles:
        roles = ", ".join(f"{role} {count(r.calls)}" for role, r in summary.roles.items())
        say(f"LM calls: {count(summary.calls)} ({roles}); tokens {count(summary.prompt_tokens)} in, "
            f"{count(summary.completion_tokens)} out; spend: {summary.spend}")
    left = (f"rules left: {', '.join(d['rules_left'])} (the finished pair judgments are journaled in "
            f"{summary.outputs.get('folder', '--out')}/journal; no table and no MLflow run for a stopped audit)")
    for text in cap_lines(summary.cap, left if d["rules_left"] else None):
        say(text)
    if d["files_folder"]:
        say(f"files: {d['files_folder']}/")
    say(f"signature: {summary.signature}")


TEXT_COLUMNS = ("rule", "kind", "note", "rule_a", "rule_b")


def _frame(records: list):
    """A table of ``summary.json`` as a DataFrame: its undefined figures (JSON null) back to NaN ("n/a")."""
    import pandas as pd  # heavy: pandas

    frame = pd.DataFrame(records)
    for column in frame.columns:
        if column not in TEXT_COLUMNS:
            frame[column] = pd.to_numeric(frame[column])
    return frame


def _rule_line(label: str, elapsed: float, s: dict) -> str:
    """One rule's timing, embedding passes, routing and LM calls."""
    text = f"{label}: {seconds(elapsed)}"
    if "encode_calls" in s:
        text += (f" ({count(s['texts_encoded'])} distinct texts embedded in {count(s['encode_calls'])} batched "
                 f"pass(es), {seconds(s['encode_seconds'])}; model load {seconds(s['load_seconds'])})")
    if "routed_judge" in s:
        screened = s['routed_screen_same'] + s['routed_screen_different']
        text += f", screened {count(screened)} pair judgments, sent {count(s['routed_judge'])} to the judge"
    if s["calls"] or "routed_judge" in s:
        text += f", LM calls {count(s['calls'])}, saved {count(s['calls_saved'])} of the 3-per-pair budget"
        if s.get("memo_hits"):
            text += f" ({count(s['memo_hits'])} pair judgments reused, not paid again)"
    return text


def _fmt(value) -> str:
    """A table cell: shares and agreement with fixed decimals, 'n/a' where undefined."""
    if isinstance(value, float):
        return number(value)
    return "" if value is None else str(value)
