"""The execution engine that runs judges over items: metering, connection pools, the LiteLLM router, garbage-collection policy, interruptible waits."""
