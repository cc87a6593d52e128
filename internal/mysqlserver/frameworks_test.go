package mysqlserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/binary"
	"errors"
	"log"
	"math/big"
	"net"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/client"
	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
	gormmysql "gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/airsql/airsql/emulator"
)

type task struct {
	Name     string        `db:"Name"`
	Priority sql.NullInt64 `db:"Priority"`
	Done     bool          `db:"Done"`
	Due      sql.NullTime  `db:"Due"`
}

// TestSqlx: sqlx struct scanning, sqlx.In and named statements give through the server what
// they give through the driver.
func TestSqlx(t *testing.T) {
	e := startServer(t)
	direct := sqlx.NewDb(e.db, "airtable")
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			served := sqlx.NewDb(e.client(t, mode.params), "mysql")
			const q = "SELECT Name, Priority, Done, Due FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC, Name LIMIT 10"
			var got, want []task
			if err := served.Select(&got, q, 4); err != nil {
				t.Fatal(err)
			}
			if err := direct.Select(&want, q, 4); err != nil {
				t.Fatal(err)
			}
			if len(got) != 10 || len(got) != len(want) {
				t.Fatalf("%d tasks, driver %d", len(got), len(want))
			}
			for i := range got {
				if got[i].Name != want[i].Name || got[i].Priority != want[i].Priority || got[i].Done != want[i].Done ||
					got[i].Due.Valid != want[i].Due.Valid || !got[i].Due.Time.Equal(want[i].Due.Time) {
					t.Errorf("row %d: %+v, driver %+v", i, got[i], want[i])
				}
			}
			names := []string{got[0].Name, got[1].Name}
			query, args, err := sqlx.In("SELECT Name FROM Tasks WHERE Name IN (?) ORDER BY Name", names)
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			if err := served.Select(&found, served.Rebind(query), args...); err != nil {
				t.Fatal(err)
			}
			sort.Strings(names)
			if !reflect.DeepEqual(found, names) {
				t.Errorf("sqlx.In: %v, want %v", found, names)
			}
			p := map[string]any{"name": "Sqlx Person " + mode.name, "email": "sqlx@example.com"}
			if _, err := served.NamedExec("INSERT INTO People (Name, Email) VALUES (:name, :email)", p); err != nil {
				t.Fatal(err)
			}
			var email string
			if err := served.Get(&email, "SELECT Email FROM People WHERE Name = ?", p["name"]); err != nil || email != "sqlx@example.com" {
				t.Errorf("read back %q, %v", email, err)
			}
			if _, err := served.Exec("DELETE FROM People WHERE Name = ?", p["name"]); err != nil {
				t.Fatal(err)
			}
		})
	}
}

type gormTask struct {
	Name     string
	Priority *int64
	Done     bool
}

func (gormTask) TableName() string { return "Tasks" }

type gormPerson struct {
	Name  string
	Email string
}

func (gormPerson) TableName() string { return "People" }

func openGorm(t *testing.T, cfg gormmysql.Config, opts ...gorm.Option) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(gormmysql.New(cfg), append(opts, &gorm.Config{Logger: logger.Discard})...)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Conn == nil {
		sqlDB, err := db.DB()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sqlDB.Close() })
	}
	return db
}

// TestGorm: GORM's MySQL dialector reads and writes through the server as it does over the
// driver itself (GORM on the driver's *sql.DB). GORM asks SELECT VERSION() at open unless told
// the version, and wraps writes in a transaction unless SkipDefaultTransaction: the driver answers
// neither yet, through the server or not (see TestGormDefaultConfig).
func TestGorm(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			served := openGorm(t, gormmysql.Config{DSN: e.dsn(mode.params), SkipInitializeWithVersion: true})
			direct := openGorm(t, gormmysql.Config{Conn: e.db, SkipInitializeWithVersion: true})
			var got, want []gormTask
			if err := served.Where("Priority >= ?", 4).Order("Priority DESC, Name").Limit(10).Find(&got).Error; err != nil {
				t.Fatal(err)
			}
			if err := direct.Where("Priority >= ?", 4).Order("Priority DESC, Name").Limit(10).Find(&want).Error; err != nil {
				t.Fatal(err)
			}
			if len(got) != 10 || !reflect.DeepEqual(got, want) {
				t.Errorf("served %+v\ndriver %+v", got, want)
			}
			tx := served.Session(&gorm.Session{SkipDefaultTransaction: true})
			p := gormPerson{Name: "Gorm Person " + mode.name, Email: "gorm@example.com"}
			if err := tx.Create(&p).Error; err != nil {
				t.Fatal(err)
			}
			var back gormPerson
			if err := served.Where("Name = ?", p.Name).First(&back).Error; err != nil || back != p {
				t.Errorf("read back %+v, %v", back, err)
			}
			if res := tx.Where("Name = ?", p.Name).Delete(&gormPerson{}); res.Error != nil || res.RowsAffected != 1 {
				t.Errorf("delete: %v, %d rows", res.Error, res.RowsAffected)
			}
			// GORM's default transaction (BEGIN, INSERT, COMMIT over one connection) runs as the
			// driver's client-side transaction.
			inTx := gormPerson{Name: "In a transaction " + mode.name, Email: "tx@example.com"}
			if err := served.Create(&inTx).Error; err != nil {
				t.Fatalf("Create in GORM's default transaction: %v", err)
			}
			var n int64
			if err := served.Model(&gormPerson{}).Where("Name = ?", inTx.Name).Count(&n).Error; err != nil || n != 1 {
				t.Errorf("after the default transaction: %d records, %v", n, err)
			}
		})
	}
}

// TestSeveralBases: each base is a database: SHOW DATABASES lists them, USE (and COM_INIT_DB,
// and the DSN's database) switches, and each runs on its own *sql.DB.
func TestSeveralBases(t *testing.T) {
	e := startServer(t)
	emu2, err := emulator.New(emulator.WithFixture(bigFixture(25)), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu2.Close() })
	db2 := openDriver(t, emu2, bigBase, "patBIG.secret", emu2.Transport())
	e2 := &env{emu: e.emu, db: e.db, log: newLogBuffer(), block: e.block}
	e2.start(t, Config{Databases: []Database{{Name: demoDB, DB: e.db}, {Name: bigBase, DB: db2}},
		User: testUser, Password: testPass, Secrets: []string{emulator.DemoToken, "patBIG.secret"}, Logger: log.New(e2.log, "", 0)})
	c := e2.client(t, "")
	conn, err := c.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _, dbs := scanAll(t, must(conn.QueryContext(t.Context(), "SHOW DATABASES")))
	if !reflect.DeepEqual(dbs, [][]string{{bigBase}, {demoDB}, {"information_schema"}}) {
		t.Errorf("SHOW DATABASES: %v", dbs)
	}
	if _, err := conn.ExecContext(t.Context(), "USE "+bigBase); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM Big").Scan(&n); err != nil || n != 25 {
		t.Errorf("COUNT(*) of Big: %d, %v", n, err)
	}
	_, err = conn.QueryContext(t.Context(), "SELECT Name FROM Tasks")
	mysqlErr(t, err, 1146, "42S02")
	if _, err := conn.ExecContext(t.Context(), "USE `"+demoDB+"`"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM Tasks").Scan(&n); err != nil || n == 0 {
		t.Errorf("COUNT(*) of Tasks: %d, %v", n, err)
	}

	// go-mysql's own client: COM_INIT_DB, COM_FIELD_LIST, COM_PING.
	raw, err := client.Connect(e2.addr, testUser, testPass, demoDB)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.UseDB(bigBase); err != nil {
		t.Fatal(err)
	}
	fields, err := raw.FieldList("Big", "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var types []uint8
	for _, f := range fields {
		names = append(names, string(f.Name))
		types = append(types, f.Type)
	}
	if !reflect.DeepEqual(names, []string{"id", "Name", "N", "X", "Done", "Day", "createdTime"}) {
		t.Errorf("COM_FIELD_LIST names %v", names)
	}
	if !reflect.DeepEqual(types, []uint8{gomysql.MYSQL_TYPE_VAR_STRING, gomysql.MYSQL_TYPE_VAR_STRING, gomysql.MYSQL_TYPE_LONGLONG,
		gomysql.MYSQL_TYPE_DOUBLE, gomysql.MYSQL_TYPE_TINY, gomysql.MYSQL_TYPE_DATE, gomysql.MYSQL_TYPE_DATETIME}) {
		t.Errorf("COM_FIELD_LIST types %v", types)
	}
	if fields, err = raw.FieldList("Big", "n%"); err != nil || len(fields) != 2 {
		t.Errorf("COM_FIELD_LIST with a wildcard: %d fields, %v", len(fields), err)
	}
	if err := raw.UseDB("nosuch"); err == nil {
		t.Error("COM_INIT_DB of an unknown database succeeded")
	}
	if err := raw.Ping(); err != nil {
		t.Error(err)
	}
}

// selfSigned makes a certificate for 127.0.0.1.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "airsql test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
}

// TestTLS: with a certificate, clients connect over TLS, with either authentication plugin.
func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	for _, plugin := range []string{"mysql_native_password", "caching_sha2_password"} {
		t.Run(plugin, func(t *testing.T) {
			e := startServer(t, func(c *Config) {
				c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
				c.AuthPlugin = plugin
			})
			verified := make(chan struct{}, 4)
			name := "airsqltest-" + plugin
			if err := mysql.RegisterTLSConfig(name, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1",
				VerifyConnection: func(tls.ConnectionState) error { verified <- struct{}{}; return nil }}); err != nil {
				t.Fatal(err)
			}
			defer mysql.DeregisterTLSConfig(name)
			c := e.client(t, "tls="+name)
			var n int64
			if err := c.QueryRow("SELECT COUNT(*) FROM People WHERE Active = ?", true).Scan(&n); err != nil {
				t.Fatal(err)
			}
			select {
			case <-verified:
			default:
				t.Error("the connection did not use TLS")
			}
		})
	}
}

// TestComQuitCancels: a client that sends COM_QUIT while its query runs (the socket still
// open) has the query cancelled at once, not when Airtable answers.
func TestComQuitCancels(t *testing.T) {
	e := startServer(t)
	raw, err := client.Connect(e.addr, testUser, testPass, demoDB)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	query := "SELECT Name FROM Tasks WHERE Name = 'block-me'"
	packet := append([]byte{byte(len(query) + 1), 0, 0, 0, gomysql.COM_QUERY}, query...)
	if _, err := raw.Conn.Conn.Write(packet); err != nil {
		t.Fatal(err)
	}
	wait(t, e.block.started, "the query to reach Airtable")
	if _, err := raw.Conn.Conn.Write([]byte{1, 0, 0, 0, gomysql.COM_QUIT}); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, e.block.ended, "the server to cancel the request"); err == nil {
		t.Error("the request was released, not cancelled")
	}
}

// rawResult reads a result set's packets after a command: the rows' payloads, or the error.
func rawResult(t *testing.T, raw *client.Conn) (rows [][]byte, errMsg string) {
	t.Helper()
	first, err := raw.ReadPacket()
	if err != nil {
		t.Fatal(err)
	}
	if first[0] == 0xff {
		return nil, string(first[9:])
	}
	eofs := 0
	for eofs < 2 {
		p, err := raw.ReadPacket()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case p[0] == 0xfe && len(p) < 9:
			eofs++
		case p[0] == 0xff:
			return rows, string(p[9:])
		case eofs == 1:
			rows = append(rows, p)
		}
	}
	return rows, ""
}

// TestExecuteWithoutTypes: COM_STMT_EXECUTE without the types (new-params-bound flag 0, as
// libmysqlclient and ODBC send every execution after the first) binds the values with the types
// sent before; a DATETIME parameter in its binary form is a time.
func TestExecuteWithoutTypes(t *testing.T) {
	e := startServer(t)
	raw, err := client.Connect(e.addr, testUser, testPass, demoDB)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	prepare := func(q string) []byte {
		raw.ResetSequence()
		if err := raw.WritePacket(append([]byte{0, 0, 0, 0, gomysql.COM_STMT_PREPARE}, q...)); err != nil {
			t.Fatal(err)
		}
		ok, err := raw.ReadPacket()
		if err != nil || ok[0] != 0 {
			t.Fatalf("prepare: %x %v", ok, err)
		}
		// One parameter definition and EOF, then the one result column's definition and EOF.
		cols, params := binary.LittleEndian.Uint16(ok[5:]), binary.LittleEndian.Uint16(ok[7:])
		if cols != 1 || params != 1 {
			t.Fatalf("prepare %q announced %d columns and %d parameters, want 1 and 1", q, cols, params)
		}
		for range 4 {
			if _, err := raw.ReadPacket(); err != nil {
				t.Fatal(err)
			}
		}
		return ok[1:5]
	}
	execute := func(id []byte, bound bool, typ byte, value []byte) ([][]byte, string) {
		raw.ResetSequence()
		p := append([]byte{0, 0, 0, 0, gomysql.COM_STMT_EXECUTE}, id...)
		p = append(p, 0, 1, 0, 0, 0, 0) // no cursor, iteration count 1, NULL bitmap
		if bound {
			p = append(p, 1, typ, 0)
		} else {
			p = append(p, 0)
		}
		p = append(p, value...)
		if err := raw.WritePacket(p); err != nil {
			t.Fatal(err)
		}
		return rawResult(t, raw)
	}
	lenenc := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	id := prepare("SELECT Name FROM People WHERE Name = ?")
	for i, name := range []string{"Ada Lovelace", "Grace Ritchie", "Ada Lovelace"} {
		rows, msg := execute(id, i == 0, gomysql.MYSQL_TYPE_VAR_STRING, lenenc(name))
		if msg != "" || len(rows) != 1 || string(rows[0][3:]) != name {
			t.Errorf("execution %d (types sent: %v): rows %q, error %q", i+1, i == 0, rows, msg)
		}
	}
	var want int64
	since := time.Date(2024, 1, 3, 12, 0, 0, 0, time.UTC)
	if err := e.db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE createdTime >= ?", since).Scan(&want); err != nil {
		t.Fatal(err)
	}
	id = prepare("SELECT COUNT(*) FROM Tasks WHERE createdTime >= ?")
	rows, msg := execute(id, true, gomysql.MYSQL_TYPE_DATETIME, []byte{7, 0xe8, 0x07, 1, 3, 12, 0, 0})
	if msg != "" || len(rows) != 1 {
		t.Fatalf("rows %q, error %q", rows, msg)
	}
	if got := int64(binary.LittleEndian.Uint64(rows[0][2:])); got != want || want == 0 {
		t.Errorf("COUNT(*) since %v: %d through the server, %d directly", since, got, want)
	}
}

// TestResetConnection: COM_RESET_CONNECTION forgets the session's user variables and PREPAREd
// statements, as MySQL's does.
func TestResetConnection(t *testing.T) {
	e := startServer(t)
	raw, err := client.Connect(e.addr, testUser, testPass, demoDB)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{"SET @kept = 1", "PREPARE kept FROM 'SELECT 1'"} {
		if _, err := raw.Execute(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.ResetSequence()
	if err := raw.WritePacket([]byte{0, 0, 0, 0, gomysql.COM_RESET_CONNECTION}); err != nil {
		t.Fatal(err)
	}
	if ok, err := raw.ReadPacket(); err != nil || ok[0] != gomysql.OK_HEADER {
		t.Fatalf("COM_RESET_CONNECTION: %x %v", ok, err)
	}
	res, err := raw.Execute("SELECT @kept")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := res.GetValue(0, 0); v != nil {
		t.Errorf("@kept after the reset: %v, want NULL", v)
	}
	_, err = raw.Execute("EXECUTE kept")
	var my *gomysql.MyError
	if !errors.As(err, &my) || my.Code != gomysql.ER_UNKNOWN_STMT_HANDLER {
		t.Errorf("EXECUTE kept after the reset: %v, want error 1243", err)
	}
}
