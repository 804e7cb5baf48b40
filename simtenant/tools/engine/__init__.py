"""The engine's tool machinery, the same for every world: the registry (a typed function becomes a
tool), the one dispatcher, the harness tools offered beside every world's own (``finish``,
``send_message_to_user``), ``api_search``/``api_fetch``, and money arithmetic."""
