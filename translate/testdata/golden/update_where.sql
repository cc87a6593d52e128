-- args: ["Done"]
UPDATE Tasks SET Priority = Priority + 1, Status = ? WHERE Done AND Priority < 5
