package airsql

import (
	"context"
	"testing"

	"github.com/airsql/airsql/internal/oracle"
)

// TestOracleJoins3: correlated subqueries (scalar, IN / NOT IN with NULLs, EXISTS with LIMIT or
// HAVING, ORDER BY … LIMIT inside), RIGHT JOIN after a join, USING and NATURAL, and the bind of a
// LEFT JOIN's right table, written by hand over the oracle's fixture and compared with MariaDB,
// pushed and local. Skipped (one line) without mariadbd, as TestOracle is.
func TestOracleJoins3(t *testing.T) {
	ctx := context.Background()
	maria, _, pushed, local := startOracle(t)
	for _, sql := range []string{
		"SELECT p.Name, (SELECT COUNT(*) FROM Items i WHERE i.Qty = p.Age) FROM People p",
		"SELECT p.Name, (SELECT MAX(i.Price) FROM Items i WHERE i.Qty = p.Age AND i.Done) FROM People p",
		"SELECT i.Name FROM Items i WHERE i.Price > (SELECT AVG(j.Price) FROM Items j WHERE j.Status = i.Status)",
		"SELECT p.Name FROM People p WHERE p.Age NOT IN (SELECT i.Qty FROM Items i WHERE i.Name = p.Name)",
		"SELECT p.Name FROM People p WHERE p.Age NOT IN (SELECT i.Qty FROM Items i WHERE i.Price < p.Score)",
		"SELECT p.Name FROM People p WHERE p.Age IN (SELECT i.Qty FROM Items i WHERE i.Price < p.Score)",
		"SELECT p.Name FROM People p WHERE EXISTS (SELECT 1 FROM Items i WHERE i.Qty > p.Age LIMIT 1)",
		"SELECT p.Name FROM People p WHERE NOT EXISTS (SELECT i.Status FROM Items i WHERE i.Qty = p.Age GROUP BY i.Status HAVING COUNT(*) > 1)",
		"SELECT p.Name, (SELECT COUNT(*) FROM Items i WHERE i.Qty = p.Age HAVING COUNT(*) > 1) FROM People p",
		"SELECT p.Name, (SELECT i.Name FROM Items i WHERE i.Qty = p.Age ORDER BY i.Name DESC LIMIT 1) FROM People p",
		"SELECT p.Name FROM People p WHERE p.Score < (SELECT SUM(i.Price) FROM Items i WHERE i.Qty BETWEEN p.Age - 2 AND p.Age + 2)",
		"SELECT p.Name, (SELECT COUNT(*) FROM People q WHERE q.Age = p.Age AND EXISTS (SELECT 1 FROM Items i WHERE i.Qty = q.Age AND i.Name = p.Name)) FROM People p",
		"SELECT a.Name, b.Name, Age FROM People a JOIN People b USING (Age)",
		"SELECT Age, COUNT(*) FROM People a LEFT JOIN People b USING (Age) GROUP BY Age",
		"SELECT Age, a.Name, b.Name FROM People a RIGHT JOIN People b USING (Age)",
		"SELECT * FROM (SELECT Name, Age FROM People) a NATURAL JOIN (SELECT Name, Score FROM People) b",
		"SELECT * FROM (SELECT Name, Age FROM People) a NATURAL RIGHT JOIN (SELECT Age, Score FROM People WHERE Score > 0) b",
		"SELECT p.Name, i.Name, q.Name FROM People p JOIN Items i ON i.Qty = p.Age RIGHT JOIN People q ON q.Age = p.Age + 1",
		"SELECT p.Name, i.Name, q.Name FROM People p JOIN Items i ON i.Qty = p.Age RIGHT JOIN People q ON q.Age = p.Age + 1 WHERE i.Name IS NULL",
		"SELECT p.Name, i.Name FROM People p LEFT JOIN Items i ON i.Name = p.Name WHERE p.Age > 30",
		"SELECT p.Name, i.Name, j.Code FROM People p JOIN Items i ON i.Qty = p.Age JOIN Items j ON j.Name = i.Name WHERE p.Active",
		"SELECT p.Name, i.Name, q.Name FROM People p JOIN (Items i JOIN People q ON q.Age = i.Qty) ON q.Age = p.Age AND i.Price > p.Score",
		"SELECT p.Name, i.Name, q.Name FROM People p LEFT JOIN (Items i JOIN People q ON q.Age = i.Qty) ON q.Age = p.Age AND i.Price > p.Score",
		"SELECT p.Name, i.Name, q.Name FROM People p LEFT JOIN (Items i JOIN People q ON q.Age = i.Qty AND q.Active) ON i.Name = p.Name WHERE q.Name IS NULL OR i.Qty > 3",
		"SELECT p.Name, i.Name, q.Name FROM People p LEFT JOIN (Items i CROSS JOIN People q) ON i.Qty = p.Age AND q.Age = p.Age JOIN Items j ON j.Qty = p.Age",
	} {
		q := &oracle.Query{Driver: sql, MariaDB: sql}
		o := runOracle(ctx, q, maria, pushed, local)
		if problem := o.check(); problem != "" {
			t.Errorf("%s: %s\n  explain: %s", sql, problem, explainOracle(ctx, pushed, q))
		}
		if o.maria.Err != nil || o.push.Err != nil || o.loc.Err != nil || len(o.maria.Rows) == 0 {
			t.Errorf("%s: MariaDB %v (%d rows), pushed %v, local %v: want rows from all three", sql, o.maria.Err, len(o.maria.Rows), o.push.Err, o.loc.Err)
		}
	}
	// Several rows for a scalar subquery: an error from all three (MariaDB's 1242).
	q := &oracle.Query{Driver: "SELECT p.Name, (SELECT i.Name FROM Items i WHERE i.Qty = p.Age) FROM People p"}
	q.MariaDB = q.Driver
	o := runOracle(ctx, q, maria, pushed, local)
	if o.maria.Err == nil || o.push.Err == nil || o.loc.Err == nil {
		t.Errorf("%s: MariaDB %v, pushed %v, local %v: want an error from each", q.Driver, o.maria.Err, o.push.Err, o.loc.Err)
	}
}
