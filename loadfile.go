package airsql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
	"github.com/xwb1989/sqlparser"
)

// LOAD_FILE('path') as the value of an attachment column in INSERT … VALUES or UPDATE … SET
// uploads that local file into the column (Airtable's uploadAttachment, at most 5 MB a file).
// As MySQL's secure_file_priv, the DSN key secureFilePriv names the one directory it may read:
// the path, with every symbolic link and .. resolved, must be inside it. The record is written
// first with the column empty (an UPDATE clears it, as SET does), then each file is uploaded to
// it; every file is read and checked before the first request.

// fileUpload is one LOAD_FILE of a statement: the VALUES row (INSERT) and the field it fills.
type fileUpload struct {
	row     int
	fieldID string
	column  string
	file    transport.Upload
}

func isLoadFile(e sqlparser.Expr) (*sqlparser.FuncExpr, bool) {
	f, ok := e.(*sqlparser.FuncExpr)
	return f, ok && f.Name.EqualString("load_file")
}

// hasLoadFile reports whether LOAD_FILE appears anywhere in the statement.
func hasLoadFile(node sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if e, ok := n.(sqlparser.Expr); ok {
			if _, ok := isLoadFile(e); ok {
				found = true
			}
		}
		return !found, nil
	}, node)
	return found
}

// readAllowedFile reads a file inside dir (secureFilePriv) as an upload: the path is resolved
// (symbolic links, ..) before it is compared with the resolved directory, and the resolved path is
// what is read.
func readAllowedFile(dir, path string) (transport.Upload, error) {
	if dir == "" {
		return transport.Upload{}, &UnsupportedError{Construct: "LOAD_FILE",
			Hint: "it reads only files inside the directory the DSN key secureFilePriv names (as MySQL's secure_file_priv): set secureFilePriv=/absolute/dir"}
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return transport.Upload{}, fmt.Errorf("airsql: LOAD_FILE: the secureFilePriv directory %q: %w", dir, err)
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(realDir, path) // as MySQL, a relative path is read from the allowed directory
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return transport.Upload{}, fmt.Errorf("airsql: LOAD_FILE(%q): %w", path, errors.Unwrap(err))
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return transport.Upload{}, fmt.Errorf("airsql: LOAD_FILE(%q): the file is outside the secureFilePriv directory %q (links and .. are followed before comparing): only files inside it can be read", path, dir)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return transport.Upload{}, fmt.Errorf("airsql: LOAD_FILE(%q): not a regular file", path)
	}
	up, err := transport.UploadFile(real, "")
	if err != nil {
		return transport.Upload{}, fmt.Errorf("airsql: LOAD_FILE(%q): %w", path, err)
	}
	up.Filename = filepath.Base(path)
	return up, nil
}

// writeWithFiles runs an INSERT or UPDATE that writes LOAD_FILE into attachment columns; ok is
// false for a statement without LOAD_FILE.
func (cn *conn) writeWithFiles(ctx context.Context, ast sqlparser.Statement, args translate.Args) (n int64, ok bool, err error) {
	if !hasLoadFile(ast) {
		return 0, false, nil
	}
	if cn.tx != nil || !cn.autocommit() { // with autocommit=0 every write is in a transaction
		return 0, true, &UnsupportedError{Construct: "LOAD_FILE in a transaction",
			Hint: "an upload is sent at once and cannot be rolled back: write it outside the transaction"}
	}
	// A copy of the statement (printed and read again) loses its LOAD_FILE values: a prepared
	// statement's own tree is run again later.
	parsed, err := translate.Parse(sqlparser.String(ast))
	if err != nil {
		return 0, true, fmt.Errorf("airsql: LOAD_FILE: %w", err)
	}
	var table string
	switch s := parsed.(type) {
	case *sqlparser.Insert:
		table = s.Table.Name.String()
	case *sqlparser.Update:
		if names := tableOf(s.TableExprs); len(names) == 1 {
			table = names[0]
		}
	}
	if table == "" {
		return 0, true, &UnsupportedError{Construct: "LOAD_FILE outside INSERT … VALUES or a one-table UPDATE … SET",
			Hint: "write it as the value of an attachment column: INSERT INTO t (Name, Files) VALUES ('x', LOAD_FILE('/dir/a.pdf'))"}
	}
	_, t, err := cn.db().tableFor(ctx, table)
	if err != nil {
		return 0, true, err
	}
	uploads, err := cn.takeLoadFiles(ctx, parsed, t, args)
	if err != nil {
		return 0, true, err
	}
	if hasLoadFile(parsed) {
		return 0, true, &UnsupportedError{Construct: "LOAD_FILE outside the values of attachment columns",
			Hint: "write LOAD_FILE('path') as the whole value of an attachment column in INSERT … VALUES or UPDATE … SET"}
	}
	own, err := ownArgs(parsed, args)
	if err != nil {
		return 0, true, err
	}
	out, err := cn.writeNow(ctx, parsed, own, nil)
	if err != nil {
		return 0, true, err
	}
	if err := cn.uploadFiles(ctx, parsed, t, out, uploads); err != nil {
		return int64(out.affected()), true, err
	}
	return int64(out.affected()), true, nil
}

// takeLoadFiles replaces each LOAD_FILE(path) written as the whole value of an attachment column
// of the statement with NULL and reads its file: the uploads to send once the records are written.
func (cn *conn) takeLoadFiles(ctx context.Context, parsed sqlparser.Statement, t *translate.Table, args translate.Args) ([]fileUpload, error) {
	var uploads []fileUpload
	switch s := parsed.(type) {
	case *sqlparser.Insert:
		rows, isValues := s.Rows.(sqlparser.Values)
		if !isValues || len(s.OnDup) > 0 {
			return nil, &UnsupportedError{Construct: "LOAD_FILE in INSERT … SELECT or ON DUPLICATE KEY UPDATE", Hint: "use INSERT … VALUES"}
		}
		for r, tuple := range rows {
			for j := range tuple {
				if j < len(s.Columns) {
					if err := cn.takeLoadFile(ctx, t, args, &uploads, s.Columns[j].String(), &tuple[j], r); err != nil {
						return nil, err
					}
				}
			}
		}
	case *sqlparser.Update:
		for _, set := range s.Exprs {
			if err := cn.takeLoadFile(ctx, t, args, &uploads, set.Name.Name.String(), &set.Expr, 0); err != nil {
				return nil, err
			}
		}
	}
	return uploads, nil
}

// takeLoadFile takes the LOAD_FILE written as the whole value *e of column (row: the VALUES row, 0
// for UPDATE), if it is one: the file is read and its upload added to uploads, *e becomes NULL.
func (cn *conn) takeLoadFile(ctx context.Context, t *translate.Table, args translate.Args, uploads *[]fileUpload, column string, e *sqlparser.Expr, row int) error {
	f, ok := isLoadFile(*e)
	if !ok {
		if hasLoadFile(*e) {
			return &UnsupportedError{Construct: "LOAD_FILE inside an expression", Hint: "write LOAD_FILE('path') as the whole value of an attachment column"}
		}
		return nil
	}
	i := -1
	for j, fl := range t.Fields {
		if strings.EqualFold(fl.Name, column) || fl.ID == column {
			i = j
		}
	}
	if i < 0 || t.Fields[i].Type != "multipleAttachments" {
		return &UnsupportedError{Construct: "LOAD_FILE into the column " + column,
			Hint: "it uploads a file into an attachment column (an Airtable attachment field)"}
	}
	if len(f.Exprs) != 1 {
		return fmt.Errorf("airsql: LOAD_FILE takes one argument, the file's path")
	}
	arg, isAliased := f.Exprs[0].(*sqlparser.AliasedExpr)
	if !isAliased {
		return fmt.Errorf("airsql: LOAD_FILE takes one argument, the file's path")
	}
	vals, err := cn.evalConstants(ctx, []sqlparser.Expr{arg.Expr}, args)
	if err != nil {
		return fmt.Errorf("airsql: LOAD_FILE's path must not read the table: %w", err)
	}
	path, isText := vals[0].(string)
	if !isText || path == "" {
		return fmt.Errorf("airsql: LOAD_FILE needs a path as text, got %v", vals[0])
	}
	up, err := readAllowedFile(cn.c.cfg.SecureFilePriv, path)
	if err != nil {
		return err
	}
	*uploads = append(*uploads, fileUpload{row: row, fieldID: t.Fields[i].ID, column: t.Fields[i].Name, file: up})
	*e = &sqlparser.NullVal{}
	return nil
}

// uploadFiles uploads each file into its records once the write is done: an INSERT's into the
// record of its VALUES row, an UPDATE's into every record updated.
func (cn *conn) uploadFiles(ctx context.Context, parsed sqlparser.Statement, t *translate.Table, out writeOutcome, uploads []fileUpload) error {
	_, isUpdate := parsed.(*sqlparser.Update)
	sent := 0
	for _, u := range uploads {
		targets := out.records
		if !isUpdate {
			if u.row >= len(out.records) {
				return fmt.Errorf("airsql: LOAD_FILE: the INSERT created %d records for %d rows", len(out.records), len(valuesRows(parsed)))
			}
			targets = out.records[u.row : u.row+1]
		}
		for _, rec := range targets {
			if _, err := cn.db().base.UploadAttachment(ctx, t.ID, rec.ID, u.fieldID, u.file); err != nil {
				return fmt.Errorf("airsql: the records were written, but uploading %q into %q of record %s failed (%d uploads were done before it): %w",
					u.file.Filename, u.column, rec.ID, sent, err)
			}
			sent++
		}
	}
	return nil
}

// valuesRows is the VALUES rows of an INSERT.
func valuesRows(ast sqlparser.Statement) sqlparser.Values {
	if ins, ok := ast.(*sqlparser.Insert); ok {
		if v, ok := ins.Rows.(sqlparser.Values); ok {
			return v
		}
	}
	return nil
}
