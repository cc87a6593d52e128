// Command airsql runs SQL against an Airtable base from the terminal.
//
//	airsql "SELECT Name, Priority FROM Tasks WHERE Priority >= 2 LIMIT 5"
//	airsql -format csv "SELECT * FROM People" > people.csv
//	airsql                      # interactive shell: statements end with ';', .help for commands
//	airsql serve                # a MySQL-protocol server: mariadb -h 127.0.0.1 -P 3306 -u airsql
//	airsql sync -to sqlite:base.db -follow   # a copy in SQLite or PostgreSQL, kept current
//
// Without -dsn, AIRTABLE_DSN or AIRTABLE_TOKEN it runs on the emulator's built-in demo base,
// in-process, and says so on stderr. With -dsn (or AIRTABLE_DSN, or AIRTABLE_TOKEN and -base)
// it talks to the service the DSN names.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// options are the command line, parsed.
type options struct {
	dsn, base, format string
	explain, progress bool
	statement         string
}

// addBaseFlags declares the flags that name the base: the shell's and sync's.
func addBaseFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.dsn, "dsn", "", "data source: airtable://[TOKEN@][HOST[:PORT]]/BASE_ID[?key=value...] (default $AIRTABLE_DSN)")
	fs.StringVar(&o.base, "base", "", "base id (appXXXXXXXXXXXXXX) to use with $AIRTABLE_TOKEN when no DSN is given")
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("airsql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	addBaseFlags(fs, o)
	fs.StringVar(&o.format, "format", "table", "output format: table, csv or json")
	fs.BoolVar(&o.explain, "explain", false, "print the request each statement becomes instead of running it")
	fs.BoolVar(&o.progress, "progress", true, "show progress of long scans on stderr when it is a terminal")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: airsql [flags] [statement]\n\nWith no statement, airsql reads statements from standard input (an interactive shell on a terminal).\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.statement = strings.TrimSpace(strings.Join(fs.Args(), " "))
	if _, err := printerFor(o.format); err != nil {
		return nil, err
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) > 0 && args[0] == "serve" {
		return runServe(ctx, args[1:], stdout, stderr, getenv, nil)
	}
	if len(args) > 0 && args[0] == "sync" {
		return runSync(ctx, args[1:], stderr, getenv)
	}
	o, err := parseArgs(args, stderr)
	var secrets []string
	if o != nil {
		dsn := o.dsn
		if dsn == "" {
			dsn = getenv("AIRTABLE_DSN")
		}
		secrets = secretsOf(dsn, getenv)
		stderr = newRedactingWriter(stderr, secrets)
	}
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		report(stderr, err)
		return 2
	}
	sess, err := open(o, getenv, stderr)
	if err != nil {
		report(stderr, err)
		return 1
	}
	defer sess.Close()
	sh := &shell{sess: sess, opts: o, out: stdout, errOut: stderr, redact: func(w io.Writer) io.Writer {
		return newRedactingWriter(w, secrets)
	}}
	if o.statement != "" {
		for _, stmt := range splitAll(o.statement) {
			if err := sh.execute(ctx, stmt); err != nil {
				report(stderr, err)
				return 1
			}
		}
		return 0
	}
	return sh.interact(ctx, stdin)
}

// splitAll splits a complete text into its statements; a last statement may omit its ';'.
func splitAll(text string) []string {
	var s splitter
	var stmts []string
	for _, line := range strings.Split(text, "\n") {
		stmts = append(stmts, s.add(line)...)
	}
	if s.pending() {
		stmts = append(stmts, strings.TrimSpace(s.buf.String()))
	}
	return stmts
}

// report prints an error as one line prefixed with the program's name.
func report(w io.Writer, err error) {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if !strings.HasPrefix(msg, "airsql: ") {
		msg = "airsql: " + msg
	}
	fmt.Fprintln(w, msg)
}
