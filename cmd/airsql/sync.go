package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/airsql/airsql/internal/syncdb"
	"github.com/airsql/airsql/replica"
)

// syncOptions are the flags of `airsql sync`.
type syncOptions struct {
	options // -dsn and -base, as the shell takes them
	to      string
	follow  bool
	tables  string
	every   time.Duration
	// fullCheck is -full-check; fullCheckSet says it was given (else the DSN's replicaFullCheck).
	fullCheck    time.Duration
	fullCheckSet bool
}

func parseSyncArgs(args []string, stderr io.Writer) (*syncOptions, error) {
	fs := flag.NewFlagSet("airsql sync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &syncOptions{}
	addBaseFlags(fs, &o.options)
	fs.StringVar(&o.to, "to", "", "the database to copy into: sqlite:FILE or postgres://user:password@host:port/dbname")
	fs.BoolVar(&o.follow, "follow", false, "keep applying the base's changes until interrupted (default: catch up once and exit)")
	fs.StringVar(&o.tables, "tables", "", "tables to copy, by name or id, comma-separated (default: every table, and tables created later)")
	fs.DurationVar(&o.every, "every", 5*time.Second, "with -follow, how often to read the base's changes (one request each time)")
	fs.DurationVar(&o.fullCheck, "full-check", replica.DefaultFullCheck, "when the service refuses the webhook (the sync then polls LAST_MODIFIED_TIME()): how often each table's ids are listed to find\n"+
		"records deleted in the base and refresh computed values; 0: at every poll (default: the DSN's replicaFullCheck, else 10m)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: airsql sync -to URL [-follow] [-tables a,b] [flags]\n\n"+
			"Copies a base into SQLite or PostgreSQL (a table per table, typed columns, a junction table per link field),\n"+
			"then applies the base's changes from a webhook, each in one transaction; the place reached is kept in\n"+
			"the table _airsql_sync, so a later run goes on from there. Where the service refuses the webhook (a token\n"+
			"without webhook:manage) it polls instead, and says so. Without -dsn, -base or AIRTABLE_TOKEN it copies\n"+
			"the built-in demo base (in-process emulator).\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("sync takes no arguments (got %q): name the target with -to", fs.Arg(0))
	}
	if o.to == "" {
		return nil, errors.New("sync needs -to: sqlite:FILE or postgres://user:password@host:port/dbname")
	}
	if o.every <= 0 {
		return nil, fmt.Errorf("-every %s: give a positive duration", o.every)
	}
	if o.fullCheck < 0 {
		return nil, fmt.Errorf("-full-check %s: give a duration ≥ 0 (0: at every poll)", o.fullCheck)
	}
	fs.Visit(func(f *flag.Flag) { o.fullCheckSet = o.fullCheckSet || f.Name == "full-check" })
	return o, nil
}

// targetSecret is the password of a target URL, kept out of whatever sync prints.
func targetSecret(to string) []string {
	if u, err := url.Parse(to); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && len(p) >= minSecretLen {
			return []string{p}
		}
	}
	return nil
}

func runSync(ctx context.Context, args []string, stderr io.Writer, getenv func(string) string) int {
	o, err := parseSyncArgs(args, stderr)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		report(stderr, err)
		return 2
	}
	dsn := o.dsn
	if dsn == "" {
		dsn = getenv("AIRTABLE_DSN")
	}
	terminal := isTerminal(stderr) // asked before the redacting writer hides the file
	stderr = newRedactingWriter(stderr, append(secretsOf(dsn, getenv), targetSecret(o.to)...))
	sess, err := open(&o.options, getenv, stderr)
	if err != nil {
		report(stderr, err)
		return 1
	}
	defer sess.Close()
	target, err := syncdb.OpenTarget(o.to)
	if err != nil {
		report(stderr, err)
		return 1
	}
	defer target.Close()
	var tables []string
	for _, t := range strings.Split(o.tables, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tables = append(tables, t)
		}
	}
	fullCheck := o.fullCheck
	if !o.fullCheckSet {
		fullCheck = sess.connector.Config().ReplicaFullCheck
	}
	line := &syncProgress{w: stderr, terminal: terminal}
	s, err := syncdb.New(ctx, sess.connector.Base(), target, syncdb.Options{Tables: tables, Progress: line.update,
		FullCheck: max(fullCheck, time.Nanosecond), // 0: at every poll
		Log:       func(msg string) { fmt.Fprintln(stderr, "airsql sync: "+msg) }})
	if err != nil {
		report(stderr, err)
		return 1
	}
	started := time.Now()
	if o.follow {
		err = s.Follow(ctx, o.every)
	} else {
		err = s.CatchUp(ctx)
	}
	st := s.Stats()
	elapsed := time.Since(started)
	speed := ""
	if !o.follow { // following, the time is mostly waiting
		speed = rate(st.RecordsCopied, elapsed)
	}
	applied := fmt.Sprintf("applied %d changes", st.PayloadsApplied)
	if s.Polling() != nil {
		applied = fmt.Sprintf("polled %d times (%d records changed)", st.Polls, st.RecordsPolled)
	}
	fmt.Fprintf(stderr, "airsql sync: %s: copied %d tables (%d records, %d pages) and %s in %s%s\n",
		target.Dialect(), st.Copies, st.RecordsCopied, st.Pages, applied, elapsed.Round(time.Millisecond), speed)
	if err != nil {
		report(stderr, err)
		return 1
	}
	return 0
}

func rate(records int, d time.Duration) string {
	if records == 0 || d <= 0 {
		return ""
	}
	return fmt.Sprintf(", %.0f records/s", float64(records)/d.Seconds())
}

// syncProgress draws a copy's progress on a terminal, one line rewritten in place per table.
type syncProgress struct {
	w        io.Writer
	terminal bool
}

func (p *syncProgress) update(pr syncdb.Progress) {
	if !p.terminal {
		return // the summary line says it all
	}
	rate := "" // from a second on: the first pages come in a burst the pacing allows
	if pr.Elapsed >= time.Second {
		rate = fmt.Sprintf(", %.1f requests/s", float64(pr.Pages)/pr.Elapsed.Seconds())
	}
	fmt.Fprintf(p.w, "\r\033[Kcopying %s: %d records, %d pages%s, %s", pr.Table, pr.Records, pr.Pages, rate, pr.Elapsed.Round(100*time.Millisecond))
	if pr.Done {
		fmt.Fprintln(p.w)
	}
}
