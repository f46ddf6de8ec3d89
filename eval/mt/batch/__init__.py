"""Batch mode (``tribunal mt evaluate --batch``): the same programs, their LM calls sent through the
providers' batch APIs (OpenAI's Batch API, which vLLM's OpenAI-compatible server also speaks, and
Anthropic's Message Batches) at the batch price.

DSPy has no batch support, so this is a separate execution layer under the unchanged programs:
:mod:`.engine` is a DSPy LM engine that answers a call from the answers already downloaded, or
*parks* it (records the request and stops the item); :mod:`.runner` replays every unfinished item
each step, sends all parked requests as one batch (split at the provider's limits), waits for it,
and replays again, so M-MAD's rounds become a chain of batches as long as the longest item's chain
of sequential calls. :mod:`.ledger` journals submitted batch ids and downloaded answers, so a
killed run re-attaches to its batches instead of paying again.
"""
