package airsql

import (
	"context"
	"errors"
	"testing"
)

// TestUseInformationSchema: USE information_schema makes its tables reachable by their bare
// names (the base's tables of the same name are hidden) and DATABASE() answer information_schema,
// as in MySQL; USE of the DSN's base goes back; any other database is refused by name.
func TestUseInformationSchema(t *testing.T) {
	srv := newEmulator(t)
	db, c := openDB(t, srv, "")
	conn := connOn(t, db)
	ctx := context.Background()
	one := func(query string) string {
		t.Helper()
		var s string
		if err := conn.QueryRowContext(ctx, query).Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return s
	}
	if _, err := conn.ExecContext(ctx, "USE information_schema"); err != nil {
		t.Fatal(err)
	}
	if got := one("SELECT DATABASE()"); got != "information_schema" {
		t.Errorf("DATABASE() = %q, want information_schema", got)
	}
	if got := one("SELECT TABLE_NAME FROM TABLES WHERE TABLE_NAME = 'Tasks'"); got != "Tasks" {
		t.Errorf("FROM TABLES: %q", got)
	}
	if got := one("SELECT COUNT(*) FROM columns WHERE TABLE_NAME = 'Tasks' AND COLUMN_NAME = 'Priority'"); got != "1" {
		t.Errorf("FROM columns: %q", got)
	}
	base := c.cfg.BaseID
	if _, err := conn.ExecContext(ctx, "/* back */ USE `"+base+"`"); err != nil {
		t.Fatal(err)
	}
	if got := one("SELECT DATABASE()"); got != base {
		t.Errorf("DATABASE() after USE %s = %q", base, got)
	}
	if got := one("SELECT COUNT(*) FROM Tasks WHERE Name IS NOT NULL"); got == "" {
		t.Error("the base's tables after USE of the base")
	}
	_, err := conn.ExecContext(ctx, "USE appOTHER000000001")
	var ue *UnknownDatabaseError
	if !errors.As(err, &ue) || ue.Database != "appOTHER000000001" {
		t.Errorf("USE of a base not served: got %v, want an UnknownDatabaseError naming it", err)
	}
	if code, _ := MySQLErrorCode(err); code != 1049 {
		t.Errorf("USE of a base not served: got MySQL error %d, want 1049", code)
	}
}
