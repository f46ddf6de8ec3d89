"""Reading a provider's rate-limit headers (tribunal.core.rate_limit_headers)."""

from __future__ import annotations

import pytest

from tribunal.core.rate_limit_headers import duration_seconds, read_rate_limits


@pytest.mark.parametrize("text, seconds", [("1s", 1.0), ("6m0s", 360.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5),
                                           ("1.5", 1.5), ("0", 0.0)])
def test_openai_durations_and_plain_seconds_are_read(text, seconds):
    assert duration_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["soon", "-1", "1x", "s", "", "inf", "1s soon"])
def test_an_unreadable_duration_is_none_not_an_error(text):
    assert duration_seconds(text) is None


def test_the_openai_headers_are_read_in_any_case():
    report = read_rate_limits([("X-RateLimit-Limit-Requests", "500"), ("x-ratelimit-remaining-requests", "0"),
                               ("x-ratelimit-reset-requests", "120ms"), ("x-ratelimit-limit-tokens", "30000"),
                               ("x-ratelimit-remaining-tokens", "29000"), ("x-ratelimit-reset-tokens", "2s"),
                               ("content-type", "application/json")], status=200)
    assert (report.limit_requests, report.remaining_requests, report.reset_requests) == (500, 0, pytest.approx(0.12))
    assert (report.limit_tokens, report.remaining_tokens, report.reset_tokens) == (30000, 29000, 2.0)
    assert report.retry_after is None and not report.empty


def test_retry_after_counts_on_a_429_only():
    headers = [("Retry-After", "3")]
    assert read_rate_limits(headers, status=429).retry_after == 3.0
    assert read_rate_limits(headers, status=200).retry_after is None
    assert read_rate_limits([("retry-after-ms", "250")], status=429).retry_after == 0.25
    assert read_rate_limits([("content-length", "2")], status=200).empty
