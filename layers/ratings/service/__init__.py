"""The use cases of the rating service, independent of Lambda and of the storage behind them."""
