"""Reading LM answers: tolerant adapters (chat and JSON formats), the value coercion behind them, and the
re-ask rule for answers that stay unusable."""

from tribunal.programs.answers.adapter import (  # noqa: F401
    TolerantChatAdapter,
    TolerantJSONAdapter,
    parse_answer,
    tolerant_adapter,
    tolerant_answers,
)
from tribunal.programs.answers.reask import DEFAULT_REASKS, ask, asks_of, current_reask, reasks_of, set_reasks  # noqa: F401
from tribunal.programs.answers.unusable import (  # noqa: F401
    RefusedAnswer,
    TruncatedAnswer,
    UnreadableAnswer,
    UnusableAnswer,
    describe,
    one_line,
)
