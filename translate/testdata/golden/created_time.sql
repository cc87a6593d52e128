SELECT id, createdTime FROM Tasks WHERE createdTime > '2024-01-01T00:00:00Z' ORDER BY createdTime
