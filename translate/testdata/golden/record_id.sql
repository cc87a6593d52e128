-- args: ["recABCDEFGHIJKLMN"]
SELECT Name FROM Tasks WHERE id = ? AND Done
