package airsql

import (
	"context"
	"errors"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// A connector serves its DSN's base and the bases of the DSN key bases as databases, as one
// MySQL server serves several: a statement names another base's tables appB.Orders (and its
// columns appB.Orders.Name), USE appB makes it the connection's default database, and
// information_schema lists them all. Each base is read through its own connector (Connector.others):
// its own schema cache and its own pacing.

// namedDatabases are the databases a statement names: db.table and db.table.column.
type namedDatabases struct {
	order  []string            // the databases other than information_schema, each once, as first written
	tables map[string][]string // lower-cased database -> the table names written with it in FROM or as a write's target
	info   bool                // information_schema is named
	// inFrom: lower-cased database -> named as a table's (FROM, a write's target), not only in
	// a column name: MySQL answers an unknown database in FROM with 1049, in a column name
	// with 1054 (unknown column), which translate gives.
	inFrom map[string]bool
}

// databasesOf walks a statement (subqueries, UNION sides and write targets included) for the
// databases it names.
func databasesOf(node sqlparser.SQLNode) namedDatabases {
	var nd namedDatabases // its maps are made at the first database found: most statements name none
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		var tn sqlparser.TableName
		table := false
		switch n := n.(type) {
		case sqlparser.TableName:
			tn, table = n, true
		case *sqlparser.ColName:
			tn = n.Qualifier // its only children: not walked again as a table's name
		default:
			return true, nil
		}
		if tn.Qualifier.IsEmpty() {
			return table, nil
		}
		db := tn.Qualifier.String()
		if strings.EqualFold(db, translate.InformationSchema) {
			nd.info = true
			return table, nil
		}
		key := strings.ToLower(db)
		if nd.tables == nil {
			nd.tables, nd.inFrom = map[string][]string{}, map[string]bool{}
		}
		if _, seen := nd.inFrom[key]; !seen {
			nd.order = append(nd.order, db)
		}
		if table { // a column's table is checked by translate (1054), not here
			nd.tables[key] = append(nd.tables[key], tn.Name.String())
		}
		nd.inFrom[key] = nd.inFrom[key] || table
		return table, nil
	}, node)
	return nd
}

// db is the connector of the connection's default database: the DSN's base, or the served base
// USE named.
func (cn *conn) db() *Connector {
	if d, ok := cn.c.database(cn.session.Database); ok {
		return d
	}
	return cn.c
}

// otherDatabase is one more base of a statement's catalog: its connector and its schema.
type otherDatabase struct {
	c      *Connector
	schema *baseSchema
}

// otherDatabases reads the schemas of the served bases a statement names besides the default
// database def — of every served base when it reads information_schema (all: USE
// information_schema or a SHOW) — so that its catalog resolves appB.Table. A database the
// connector does not serve is MySQL's 1049, saying how to serve it.
func (cn *conn) otherDatabases(ctx context.Context, def *Connector, node sqlparser.SQLNode, all bool) ([]otherDatabase, error) {
	nd := databasesOf(node)
	tables := map[*Connector][]string{}
	for _, name := range nd.order {
		d, ok := cn.c.database(name)
		if !ok {
			if nd.inFrom[strings.ToLower(name)] {
				return nil, cn.c.unknownDatabase(name)
			}
			continue
		}
		tables[d] = append(tables[d], nd.tables[strings.ToLower(name)]...)
	}
	var out []otherDatabase
	for _, d := range cn.c.databases() {
		names, named := tables[d]
		if d == def || !named && !nd.info && !all {
			continue
		}
		s, err := d.schemaFor(ctx, names...)
		if err != nil && !named && deniedAccess(err) {
			// Listed only (information_schema): as MySQL lists only the databases a user may
			// use, a base this token cannot read is left out; naming it gives the error.
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, otherDatabase{c: d, schema: s})
	}
	return out, nil
}

// refreshDatabases fetches again the schemas of the other bases of a statement that could not be
// planned, those cached long enough ago (schemaRecheckAfter) to lack a column added since.
func refreshDatabases(ctx context.Context, others []otherDatabase) error {
	for i, o := range others {
		if o.c.schemaAge() <= schemaRecheckAfter {
			continue
		}
		s, err := o.c.loadSchema(ctx, true)
		if err != nil {
			return err
		}
		others[i].schema = s
	}
	return nil
}

// deniedAccess reports the service refusing the token access to a base (401, 403, 404).
func deniedAccess(err error) bool {
	var ae *transport.APIError
	return errors.As(err, &ae) && (ae.StatusCode == 401 || ae.StatusCode == 403 || ae.StatusCode == 404)
}

// refuseOtherBasesOnReplica refuses a read of another base than the DSN's on a connector with a
// replica: the replica copies the DSN's base only.
func (cn *conn) refuseOtherBasesOnReplica(def *Connector, node sqlparser.SQLNode) error {
	if cn.c.replica == nil {
		return nil
	}
	base := ""
	if def != cn.c {
		base = def.cfg.BaseID
	}
	for _, name := range databasesOf(node).order {
		if d, _ := cn.c.database(name); d != cn.c {
			base = d.cfg.BaseID
		}
	}
	if base == "" {
		return nil
	}
	return &UnsupportedError{Construct: "reading base " + base + " on a connector with replica=",
		Hint: "the replica copies the DSN's base (" + cn.c.cfg.BaseID + ") only: open a connector without replica= whose DSN names " + base + " to read it live"}
}

// catalogOf is the catalog a statement is planned against: the default database's tables, then
// the other bases it names.
func (cn *conn) catalogOf(def *Connector, bs *baseSchema, others []otherDatabase) *engine.Catalog {
	catalog := engine.NewCatalog(bs, bs.tables, def.cfg.BaseID)
	for _, o := range others {
		catalog.AddDatabase(o.c.cfg.BaseID, o.schema, o.schema.tables)
	}
	cn.c.addReplicaStatus(catalog)
	catalog.InformationSchemaFirst = cn.inInformationSchema()
	catalog.TableRows = func(t *translate.Table) (int, bool) {
		n, ok := cn.c.connectorOf(t).tableSizes.Load(t.ID)
		if !ok {
			return 0, false
		}
		return n.(int), true
	}
	return catalog
}

// writeTargetOf is the table a write statement writes, when it names one table: INSERT's, or a
// single-table UPDATE's or DELETE's (joins and multi-table forms keep their names as written).
func writeTargetOf(ast sqlparser.Statement) (*sqlparser.TableName, bool) {
	var from sqlparser.TableExprs
	switch s := ast.(type) {
	case *sqlparser.Insert:
		return &s.Table, true
	case *sqlparser.Update:
		from = s.TableExprs
	case *sqlparser.Delete:
		if len(s.Targets) > 0 {
			return nil, false
		}
		from = s.TableExprs
	default:
		return nil, false
	}
	if len(from) != 1 {
		return nil, false
	}
	ate, ok := from[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, false
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, false
	}
	return &tn, true
}

// inTargetDatabase returns the connection a write is planned on and the statement to plan: cn
// and ast, unless the write's table is named db.table with db a served base. A write reaches one
// base, its table's, so it is then planned as if USE db were in force — on a copy of the
// connection, the session's default database unchanged — with the table named alone.
func (cn *conn) inTargetDatabase(ast sqlparser.Statement) (*conn, sqlparser.Statement, error) {
	target, found := writeTargetOf(ast)
	if !found || target.Qualifier.IsEmpty() || strings.EqualFold(target.Qualifier.String(), translate.InformationSchema) {
		return cn, ast, nil
	}
	d, served := cn.c.database(target.Qualifier.String())
	if !served {
		return nil, nil, cn.c.unknownDatabase(target.Qualifier.String())
	}
	unqualified := sqlparser.TableName{Name: target.Name}
	switch s := ast.(type) {
	case *sqlparser.Insert:
		cp := *s
		cp.Table = unqualified
		ast = &cp
	case *sqlparser.Update:
		cp, ate := *s, *s.TableExprs[0].(*sqlparser.AliasedTableExpr)
		ate.Expr, cp.TableExprs = unqualified, sqlparser.TableExprs{&ate}
		ast = &cp
	case *sqlparser.Delete:
		cp, ate := *s, *s.TableExprs[0].(*sqlparser.AliasedTableExpr)
		ate.Expr, cp.TableExprs = unqualified, sqlparser.TableExprs{&ate}
		ast = &cp
	}
	if d != cn.db() && namesBareTables(ast) {
		return nil, nil, &UnsupportedError{Construct: "a write to " + sqlparser.String(*target) + " naming other tables without their database",
			Hint: "name them with their database (" + cn.db().cfg.BaseID + ".Table), or USE " + d.cfg.BaseID + " first"}
	}
	there := *cn
	session := *cn.session
	session.Database = d.cfg.BaseID
	there.session = &session
	return &there, ast, nil
}

// namesBareTables reports whether a write names a table without a database besides its target
// (in a subquery or a join).
func namesBareTables(ast sqlparser.Statement) bool {
	seen := 0
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.ColName:
			return false, nil
		case sqlparser.TableName:
			if n.Qualifier.IsEmpty() && !strings.EqualFold(n.Name.String(), "dual") {
				seen++
			}
		}
		return true, nil
	}, ast)
	return seen > 1
}
