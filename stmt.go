package airsql

import (
	"context"
	"database/sql/driver"
)

// stmt is a prepared statement. Preparing parses it, once; each execution plans the statement
// again (the schema may have changed) and sends its requests. translate only reads the AST, so
// one parse serves every execution.
type stmt struct {
	cn *conn
	st statement
}

// stmt implements these driver interfaces.
var (
	_ driver.Stmt             = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
	_ driver.StmtExecContext  = (*stmt)(nil)
)

func (s *stmt) Close() error { return nil }

// NumInput is -1: database/sql does not count the arguments; the translator checks that every
// placeholder has a value.
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), namedValues(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), namedValues(args))
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.cn.exec(ctx, s.st, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.cn.query(ctx, s.st, args)
}

func namedValues(args []driver.Value) []driver.NamedValue {
	nvs := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nvs[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nvs
}
