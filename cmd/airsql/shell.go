package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/airsql/airsql/frontend"
)

// shell runs statements against one session and prints their results.
type shell struct {
	sess   *session
	opts   *options
	out    io.Writer
	errOut io.Writer
	redact func(io.Writer) io.Writer // wraps a writer for errors so that it shows no secret; nil: none
	writes writeRun                  // one-row INSERTs sent one by one (writepace.go)
}

const helpText = `Statements end with ';' and may span several lines.
  SELECT ... FROM table [WHERE ...] [ORDER BY ...] [LIMIT n]
  INSERT INTO table (a, b) VALUES (...), (...)
  UPDATE table SET a = ... WHERE ...      DELETE FROM table WHERE ...
  SHOW TABLES     DESCRIBE table     EXPLAIN statement
Commands:
  .tables         list the tables of the base
  .schema TABLE   the columns of a table
  .format F       output format: table, csv or json
  .help           this text
  .quit           leave (also Ctrl-D)
`

func (sh *shell) execute(ctx context.Context, stmt string) error {
	// The front end says what the statement is, as the driver and the server read it: comments
	// before it change nothing. One it cannot read goes to the driver, which says why.
	st, readErr := frontend.Read(stmt)
	if _, isExplain := st.(*frontend.Explain); sh.opts.explain && readErr == nil && !isExplain {
		stmt = "EXPLAIN " + stmt
		st, readErr = frontend.Read(stmt)
	}
	if readErr == nil && !st.ReturnsRows() {
		start := time.Now()
		res, err := sh.sess.db.ExecContext(ctx, stmt)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		sh.noteWrite(sh.errOut, st, n, time.Since(start))
		if n == 1 {
			fmt.Fprintln(sh.out, "1 row affected")
		} else {
			fmt.Fprintf(sh.out, "%d rows affected\n", n)
		}
		return nil
	}
	ctx, done := sh.sess.trackProgress(ctx, sh.errOut, sh.opts.progress)
	r, err := query(ctx, sh.sess.db, stmt)
	done()
	if err != nil {
		return err
	}
	p, err := printerFor(sh.opts.format)
	if err != nil {
		return err
	}
	return p(sh.out, r)
}

// query runs a statement and reads all of its rows.
func query(ctx context.Context, db *sql.DB, stmt string) (*result, error) {
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	r := &result{}
	for _, c := range cols {
		r.columns = append(r.columns, c.Name())
		r.types = append(r.types, c.DatabaseTypeName())
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r.rows = append(r.rows, vals)
	}
	return r, rows.Err()
}

// command runs a dot-command; it reports false when the shell should end.
func (sh *shell) command(ctx context.Context, line string) (bool, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ".quit", ".exit":
		return false, nil
	case ".help":
		fmt.Fprint(sh.out, helpText)
	case ".tables":
		return true, sh.execute(ctx, "SHOW TABLES")
	case ".schema":
		if arg == "" {
			return true, errors.New(".schema needs a table name, for example: .schema Tasks")
		}
		return true, sh.execute(ctx, "DESCRIBE `"+strings.ReplaceAll(strings.Trim(arg, "`"), "`", "``")+"`")
	case ".format":
		if _, err := printerFor(arg); err != nil {
			return true, err
		}
		sh.opts.format = arg
	default:
		return true, fmt.Errorf("unknown command %s: type .help for the list", name)
	}
	return true, nil
}

// lineReader is where interactive input comes from: a terminal with line editing and
// history, or plain lines from a pipe.
type lineReader interface {
	readLine(prompt string) (string, error)
}

type pipeReader struct{ sc *bufio.Scanner }

func (p pipeReader) readLine(string) (string, error) {
	if p.sc.Scan() {
		return p.sc.Text(), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

type termReader struct{ t *term.Terminal }

func (r termReader) readLine(prompt string) (string, error) {
	r.t.SetPrompt(prompt)
	return r.t.ReadLine()
}

// interact reads statements until end of input. On a terminal it prompts and keeps history;
// from a pipe it runs a script and stops at the first error.
func (sh *shell) interact(ctx context.Context, stdin io.Reader) int {
	var in lineReader
	var history *fileHistory // nil when not on a terminal
	script := true
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		old, err := term.MakeRaw(int(f.Fd()))
		if err != nil {
			fmt.Fprintf(sh.errOut, "airsql: cannot use the terminal: %v\n", err)
			return 1
		}
		defer term.Restore(int(f.Fd()), old)
		t := term.NewTerminal(struct {
			io.Reader
			io.Writer
		}{f, sh.out}, "")
		if w, h, err := term.GetSize(int(f.Fd())); err == nil {
			t.SetSize(w, h)
		}
		history = loadHistory(historyPath())
		t.History = history
		sh.out, sh.errOut = t, t // the terminal turns \n into \r\n in raw mode
		if sh.redact != nil {
			sh.errOut = sh.redact(t)
		}
		in, script = termReader{t}, false
		fmt.Fprintln(sh.out, "airsql: statements end with ';'. Type .help for help, .quit to leave.")
	} else {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		in = pipeReader{sc}
	}

	var sp splitter
	status := 0
	for {
		prompt := "airsql> "
		if sp.pending() {
			prompt = "    ..> "
		}
		line, err := in.readLine(prompt)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(sh.errOut, "airsql: reading input: %v\n", err)
			return 1
		}
		if !sp.pending() && strings.HasPrefix(strings.TrimSpace(line), ".") {
			if history != nil {
				history.record(line)
			}
			more, err := sh.command(ctx, line)
			if err != nil {
				report(sh.errOut, err)
				status = 1
				if script {
					return status
				}
			}
			if !more {
				return status
			}
			continue
		}
		for _, stmt := range sp.add(line) {
			if history != nil {
				history.record(stmt + ";")
			}
			if err := sh.execute(ctx, stmt); err != nil {
				report(sh.errOut, err)
				status = 1
				if script {
					return status
				}
			}
			if ctx.Err() != nil {
				return 130
			}
		}
	}
	if sp.pending() {
		fmt.Fprintln(sh.errOut, "airsql: input ended inside a statement (missing ';'); it was not run")
		return 1
	}
	return status
}

// historyPath is where the interactive history is kept between runs ("" when there is no home).
func historyPath() string {
	if p := os.Getenv("AIRSQL_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".airsql_history")
}
