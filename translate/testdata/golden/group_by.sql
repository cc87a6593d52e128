SELECT Status, COUNT(*) FROM Tasks GROUP BY Status
