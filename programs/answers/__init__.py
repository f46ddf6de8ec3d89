"""Reading LM answers: tolerant adapters (chat and JSON formats) and the value coercion behind them."""

from tribunal.programs.answers.adapter import (  # noqa: F401
    TolerantChatAdapter,
    TolerantJSONAdapter,
    parse_answer,
    tolerant_adapter,
    tolerant_answers,
)
