"""What every layer may use: atomic writes, Arrow helpers, progress in the logs."""
