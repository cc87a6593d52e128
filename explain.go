package airsql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// explainColumns are EXPLAIN's columns: what part of the work, and what it is.
var explainColumns = []translate.Column{textColumn("step", false), textColumn("detail", false)}

// explain answers EXPLAIN <statement>: the requests the statement becomes and what is left to do
// locally, without sending any request but the schema's (read as for the statement itself).
func (cn *conn) explain(ctx context.Context, st statement, nvs []driver.NamedValue) (driver.Rows, error) {
	rows := &staticRows{resultColumns: explainColumns}
	add := func(step, detail string) { rows.values = append(rows.values, []driver.Value{step, detail}) }
	if st.describe != nil {
		add("request", "GET /v0/meta/bases/"+cn.db().cfg.BaseID+"/tables (the base schema, cached for schemaTTL)")
		add("local", "list the columns of "+st.describe.Table)
		return rows, nil
	}
	if d := st.ddl; d != nil {
		db, err := cn.ddlDatabase(d)
		if err != nil {
			return nil, err
		}
		explainDDL(add, d, db.cfg.BaseID)
		return rows, nil
	}
	if st.ast != nil && namesComments(st.ast) {
		if _, isInsert := st.ast.(*sqlparser.Insert); isInsert {
			add("request", "POST /v0/"+cn.db().cfg.BaseID+"/{table}/{record}/comments: one per row")
			return rows, nil
		}
		add("request", "GET /v0/"+cn.db().cfg.BaseID+"/{table}/{record}/comments: one per record named by record_id = … or IN (…), and one more per 100 comments of a record")
		if _, _, isWrite := commentsWriteTarget(st.ast); isWrite {
			add("request", "then one PATCH or DELETE per comment matched")
		}
		add("local", "the rest of the statement, on those comments")
		return rows, nil
	}
	if st.ast != nil && hasLoadFile(st.ast) {
		add("local", "read each LOAD_FILE file (inside secureFilePriv)")
		add("request", "the write, then POST /v0/"+cn.db().cfg.BaseID+"/{record}/{field}/uploadAttachment per file and record written")
		return rows, nil
	}
	if st.prepared != nil {
		return nil, &UnsupportedError{Construct: "EXPLAIN " + st.prepared.Kind.String(),
			Hint: "EXPLAIN the statement itself, with its values written in"}
	}
	if st.variables != nil {
		add("request", "none")
		add("local", "list the connection's system variables")
		return rows, nil
	}
	args, err := cn.statementArgs(nvs)
	if err != nil {
		return nil, err
	}
	switch ast := st.ast.(type) {
	case *sqlparser.Select, *sqlparser.Union:
		add("statement", "SELECT")
		if err := cn.explainSelect(ctx, add, ast.(sqlparser.SelectStatement), args); err != nil {
			return nil, err
		}
	case *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		if err := cn.explainWrite(ctx, add, ast, args); err != nil {
			return nil, err
		}
	case *sqlparser.Show:
		add("request", "GET /v0/meta/bases/"+cn.db().cfg.BaseID+"/tables (the base schema, cached for schemaTTL)")
	default:
		return nil, unsupportedStatement(st.ast)
	}
	return rows, nil
}

// explainDDL describes CREATE TABLE, ALTER TABLE and CREATE INDEX: the metadata requests.
func explainDDL(add func(step, detail string), d *frontend.DDL, baseID string) {
	add("request", "GET /v0/meta/bases/"+baseID+"/tables (the base as it is now)")
	switch {
	case d.Index:
		add("local", "none: Airtable keeps no indexes, and a non-unique index changes no result")
	case d.Create:
		if d.IfNotExists {
			add("local", "nothing more if the table "+d.Table+" exists")
		}
		add("request", "POST /v0/meta/bases/"+baseID+"/tables: create "+d.Table)
	default:
		meta := "/v0/meta/bases/" + baseID + "/tables/{table}"
		if len(d.Fields) > 0 {
			add("request", fmt.Sprintf("POST %s/fields: one request per column added (%d)", meta, len(d.Fields)))
		}
		for _, ch := range d.Changes {
			add("request", fmt.Sprintf("PATCH %s/fields/{field of %s}: its name and description, if they differ from the base's", meta, ch.Column))
		}
		if d.RenameTo != "" || d.Description != nil {
			add("request", "PATCH "+meta+": the table's name and description, if they differ from the base's")
		}
	}
	for i, f := range d.Fields {
		role := "field"
		if d.Create && i == 0 {
			role = "primary field"
		}
		add(role, fmt.Sprintf("%s: %s %v", f.Name, f.Type, f.Options))
	}
}

// explainWrite describes INSERT, UPDATE or DELETE, planned where prepareWrite plans it: in the
// base of its table (an INSERT … SELECT's rows are read where it was written).
func (cn *conn) explainWrite(ctx context.Context, add func(step, detail string), ast sqlparser.Statement, args translate.Args) error {
	if ins, ok := ast.(*sqlparser.Insert); ok {
		if _, isSelect := ins.Rows.(sqlparser.SelectStatement); isSelect {
			return cn.explainInsert(ctx, add, ins, args)
		}
	}
	there, ast, err := cn.inTargetDatabase(ast)
	if err != nil {
		return err
	}
	switch ast := ast.(type) {
	case *sqlparser.Insert:
		return there.explainInsert(ctx, add, ast, args)
	case *sqlparser.Update:
		return there.explainUpdate(ctx, add, ast, args)
	case *sqlparser.Delete:
		return there.explainDelete(ctx, add, ast, args)
	}
	return unsupportedStatement(ast)
}

// explainInsert describes INSERT (… SELECT, … ON DUPLICATE KEY UPDATE): the requests that create
// or upsert its rows.
func (cn *conn) explainInsert(ctx context.Context, add func(step, detail string), ast *sqlparser.Insert, args translate.Args) error {
	if sel, ok := ast.Rows.(sqlparser.SelectStatement); ok {
		add("statement", "INSERT … SELECT")
		if err := cn.explainSelect(ctx, add, sel, args); err != nil {
			return err
		}
		add("table", sqlparser.String(ast.Table))
		add("request", "POST (create records) of every row the SELECT gives, in requests of up to 10")
		add("typecast", strconv.FormatBool(cn.c.cfg.Typecast))
		return nil
	}
	plan, _, err := planned(ctx, cn, []string{ast.Table.Name.String()}, func(s translate.Schema) (*translate.InsertPlan, error) {
		return translate.Insert(ast, s, args)
	})
	if err != nil {
		return err
	}
	n := len(plan.Rows)
	if plan.Upsert != nil {
		add("statement", "INSERT … ON DUPLICATE KEY UPDATE (upsert)")
		add("table", cn.c.tableName(plan.Table))
		add("request", fmt.Sprintf("PATCH with performUpsert.fieldsToMergeOn = [%s]: %s", strings.Join(plan.Upsert, ", "), chunks(n)))
	} else {
		add("statement", "INSERT")
		add("table", cn.c.tableName(plan.Table))
		add("request", "POST (create records): "+chunks(n))
	}
	add("typecast", strconv.FormatBool(cn.c.cfg.Typecast))
	return nil
}

// explainUpdate describes UPDATE: how its search finds the records and computes the SET values
// (the SELECT's operator tree), then the PATCHes.
func (cn *conn) explainUpdate(ctx context.Context, add func(step, detail string), ast *sqlparser.Update, args translate.Args) error {
	plan, _, catalog, err := planWrite(ctx, cn, ast, args, translate.Update)
	if err != nil {
		return err
	}
	add("statement", "UPDATE")
	if err := cn.explainSearch(add, plan.Table, plan.Search, catalog); err != nil {
		return err
	}
	add("write", "PATCH (update records) of every record found, in requests of up to 10, with the SET values computed from each record's current ones")
	add("typecast", strconv.FormatBool(cn.c.cfg.Typecast))
	return nil
}

// explainDelete describes DELETE: how its search finds the records, then the DELETEs.
func (cn *conn) explainDelete(ctx context.Context, add func(step, detail string), ast *sqlparser.Delete, args translate.Args) error {
	plan, _, catalog, err := planWrite(ctx, cn, ast, args, translate.Delete)
	if err != nil {
		return err
	}
	add("statement", "DELETE")
	if err := cn.explainSearch(add, plan.Table, plan.Search, catalog); err != nil {
		return err
	}
	add("write", "DELETE ?records[]=… of every record found, in requests of up to 10")
	return nil
}

// explainSelect describes a SELECT as the engine would run it: its operator tree.
func (cn *conn) explainSelect(ctx context.Context, add func(step, detail string), sel sqlparser.SelectStatement, args translate.Args) error {
	q, catalog, err := cn.planQuery(ctx, sel, args)
	if err != nil {
		return err
	}
	op, err := engine.Build(q, engine.Options{Source: cn.c.source(), MaxRows: cn.c.cfg.MaxRows, Catalog: catalog})
	if err != nil {
		return err
	}
	cn.explainTree(add, op.Explain(), q, cn.c.replica != nil)
	return nil
}

// explainSearch describes how an UPDATE or DELETE finds its records: the SELECT of their ids
// (translate.Search) and its operator tree, as the write runs it.
func (cn *conn) explainSearch(add func(step, detail string), table *translate.Table, search *translate.Search, catalog *engine.Catalog) error {
	op, err := engine.Build(search.Query, engine.Options{Source: scanSource{c: cn.c}, MaxRows: cn.c.cfg.MaxRows, Catalog: catalog})
	if err != nil {
		return err
	}
	add("written", cn.c.tableName(table))
	add("find", sqlparser.String(search.Select))
	cn.explainTree(add, op.Explain(), search.Query, false) // a write's search reads the service
	return nil
}

// explainTree describes the operator tree: one "operator" row per operator, root first and
// indented by depth, then each scan's request (explainScan: on the replica when replica), and a
// "local" summary of the work done here.
func (cn *conn) explainTree(add func(step, detail string), root engine.Node, q *translate.Query, replica bool) {
	var local []string
	var scans []*translate.Plan
	var walk func(n engine.Node, depth int)
	walk = func(n engine.Node, depth int) {
		detail := n.Op
		if n.Detail != "" {
			detail += ": " + n.Detail
		}
		add("operator", strings.Repeat("  ", depth)+detail)
		switch {
		case n.Plan != nil:
			scans = append(scans, n.Plan)
		case n.Op == "limit" && q.Scan != nil && q.Offset == 0 && q.Scan.Request.MaxRecords > 0 && q.Scan.Request.MaxRecords == q.Limit:
			// maxRecords already stops the scan there.
		case n.Op == "filter" && strings.HasPrefix(n.Detail, "WHERE"):
			if len(n.Inputs) == 1 && n.Inputs[0].Plan != nil {
				if fns := n.Inputs[0].Plan.LocalFunctions(); len(fns) > 0 {
					local = append(local, "compute "+strings.Join(fns, ", ")+" locally (no formula gives SQL's result)")
				}
			}
			local = append(local, "check the WHERE clause on each record")
		case n.Op != "project" && n.Op != "values":
			local = append(local, detail)
		}
		for _, in := range n.Inputs {
			walk(in, depth+1)
		}
	}
	walk(root, 0)
	for _, plan := range scans {
		cn.explainScan(add, plan, replica)
	}
	if q.Scan == nil && q.Join == nil && q.Union == nil {
		add("request", "none: a SELECT without a table")
	} else if q.Scan != nil && q.Scan.Table.Local && q.Scan.Table.Derived == nil && q.Scan.Table.JSONTable == nil {
		add("table", q.Scan.Table.ID+" (in memory, built from the base schema)")
		add("request", "none: the base schema, cached for schemaTTL")
	}
	if q.Streams() {
		add("streaming", "yes: rows are returned as the pages arrive")
	} else {
		add("streaming", fmt.Sprintf("no: every row is read before the first is returned; the groups, distinct rows or rows to sort held count against maxRows=%d", cn.c.cfg.MaxRows))
	}
	if len(local) == 0 {
		local = append(local, "nothing but reading the values")
	}
	for i, j := 0, len(local)-1; i < j; i, j = i+1, j-1 {
		local[i], local[j] = local[j], local[i] // in the order the work is done: leaves first
	}
	add("local", strings.Join(local, "; "))
}

// explainScan describes one scan's request, with an estimate of its pages when the table's size
// is known from an earlier scan or COUNT(*).
func (cn *conn) explainScan(add func(step, detail string), plan *translate.Plan, replica bool) {
	if plan.Table.Local {
		return
	}
	if replica {
		cn.explainReplica(add, plan)
		return
	}
	add("table", cn.c.tableName(plan.Table))
	switch {
	case plan.NoRows:
		add("request", "none: the WHERE clause is never true")
		return
	case plan.RecordIDs != nil:
		add("request", fmt.Sprintf("GET one record by id, %d request(s): %s", len(plan.RecordIDs), strings.Join(plan.RecordIDs, ", ")))
	default:
		opts := listOptions(plan, cn.c.cfg.PageSize)
		add("request", "list records: GET /v0/"+cn.c.connectorOf(plan.Table).cfg.BaseID+"/"+plan.Table.ID+" page by page (POST …/listRecords when the URL would pass 16,000 characters)")
		if opts.View != "" {
			add("view", opts.View)
		}
		if opts.Formula != "" {
			add("filterByFormula", opts.Formula)
		}
		if len(opts.Sort) > 0 {
			add("sort", sortText(plan.Request.Sort))
		}
		if opts.MaxRecords > 0 {
			add("maxRecords", strconv.Itoa(opts.MaxRecords))
		}
		if opts.Fields != nil {
			add("fields[]", strings.Join(opts.Fields, ", "))
		} else {
			add("fields[]", "(not sent: every field)")
		}
		add("pageSize", strconv.Itoa(opts.PageSize))
		cn.explainCacheAndSplit(add, plan, opts, "")
		if v, ok := cn.c.connectorOf(plan.Table).tableSizes.Load(plan.Table.ID); ok {
			add("estimate", estimatePages(v.(int), opts))
		} else {
			add("estimate", "unknown: the table's size is learnt from a scan of the whole table or SELECT COUNT(*) without WHERE")
		}
	}
	switch {
	case plan.Request.Formula == "" && plan.Exact:
	case plan.Exact:
		add("pushdown", "exact: the formula selects exactly the rows of the WHERE clause")
	default:
		add("pushdown", "superset: every record received is checked again with the WHERE clause")
	}
}

// estimatePages says how many list requests a scan takes on a table of size records.
func estimatePages(size int, opts transport.ListOptions) string {
	n := size
	if opts.MaxRecords > 0 && opts.MaxRecords < n {
		n = opts.MaxRecords
	}
	pages := max(1, (n+opts.PageSize-1)/opts.PageSize)
	if opts.Formula != "" || opts.View != "" {
		return fmt.Sprintf("at most %d request(s) (the table has %d records; the filter may select fewer)", pages, size)
	}
	return fmt.Sprintf("%d request(s) (the table has %d records)", pages, size)
}

func sortText(keys []translate.Sort) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Field + " asc"
		if k.Desc {
			parts[i] = k.Field + " desc"
		}
	}
	return strings.Join(parts, ", ")
}

// chunks says how many write requests n records take.
func chunks(n int) string {
	requests := (n + 9) / 10
	return fmt.Sprintf("%d record(s) in %d request(s) of up to 10, several in flight, paced", n, requests)
}

// explainCacheAndSplit adds what the result cache would do with the listing, and the second
// request of a plan split on a nullable ORDER BY key.
func (cn *conn) explainCacheAndSplit(add func(step, detail string), plan *translate.Plan, opts transport.ListOptions, prefix string) {
	if tbl := cn.c.connectorOf(plan.Table).base.Table(plan.Table.ID); tbl.ResultCacheTTL() > 0 {
		cache := "on (" + tbl.ResultCacheTTL().String() + "): not cached now, the next identical read is"
		if recs, age, hits, ok := tbl.CachedListing(opts); ok {
			cache = fmt.Sprintf("hit: answered from memory (%d records, read %s ago, %d hits so far), no request", recs, age.Round(time.Millisecond), hits)
		}
		add("result cache", cache)
	}
	if sp := plan.Split; sp != nil {
		when := "then, only while LIMIT is not reached"
		if sp.BlanksFirst {
			when = "first (NULLs sort first ascending)"
		}
		detail := "list the rows whose " + plan.Order[0].Column + " is NULL, " + when + ": filterByFormula " + sp.Blanks.Formula
		if len(sp.Blanks.Sort) > 0 {
			detail += ", sort " + sortText(sp.Blanks.Sort)
		}
		add(prefix+"request (NULL keys)", detail)
	}
}
