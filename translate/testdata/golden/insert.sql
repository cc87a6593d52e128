-- args: ["Write docs", 3, {"strings": ["x", "y"]}, {"time": "2024-05-06T07:08:09Z"}]
INSERT INTO Tasks (Name, Priority, Tags, Due, Done) VALUES (?, ?, ?, ?, TRUE), ('Second', NULL, '["y"]', '2024-01-02', FALSE)
