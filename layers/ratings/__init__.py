"""The Elo rating service: pure rules, the use cases, and the DynamoDB storage behind them."""
