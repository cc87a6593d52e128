-- args: ["p1"]
SELECT * FROM People WHERE id = ? OR RECORD_ID() = 'recABCDEFGHIJKLMN'
