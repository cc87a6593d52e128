package mysqlserver

import (
	"database/sql"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
)

// TestCommentsDDLAndUploadsThroughServe: schema changes, record comments, LOAD_FILE and USER()
// through airsql serve, with go-sql-driver/mysql in both its modes.
func TestCommentsDDLAndUploadsThroughServe(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	emu, err := emulator.New(emulator.WithDemo(), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	cfg := airsql.NewConfig()
	cfg.Token, cfg.BaseID, cfg.Host, cfg.TLS = emulator.DemoToken, demoDB, "localhost", false
	cfg.HTTPClient, cfg.SecureFilePriv = &http.Client{Transport: emu.Transport()}, dir
	c, err := airsql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	e := &env{emu: emu, db: db, log: newLogBuffer()}
	e.start(t, Config{Databases: []Database{{Name: demoDB, DB: db}}, User: testUser, Password: testPass,
		Logger: log.New(e.log, "", 0), Secrets: []string{emulator.DemoToken}})

	var rec string
	if err := db.QueryRow("SELECT id FROM People ORDER BY id LIMIT 1").Scan(&rec); err != nil {
		t.Fatal(err)
	}
	for i, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			col := []string{"Bio", "About"}[i]
			if _, err := client.Exec("ALTER TABLE People ADD COLUMN " + col + " TEXT COMMENT 'short'"); err != nil {
				t.Fatal(err)
			}
			if _, err := client.Exec("ALTER TABLE People RENAME COLUMN " + col + " TO " + col + "2, COMMENT = 'everyone'"); err != nil {
				t.Fatal(err)
			}
			var name, ddl string
			if err := client.QueryRow("SHOW CREATE TABLE People").Scan(&name, &ddl); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(ddl, "`"+col+"2` longtext COMMENT 'short'") || !strings.HasSuffix(ddl, "COMMENT='everyone'") {
				t.Errorf("SHOW CREATE TABLE after ALTER:\n%s", ddl)
			}
			if _, err := client.Exec("INSERT INTO `People$comments` (record_id, text) VALUES (?, ?)", rec, "via "+mode.name); err != nil {
				t.Fatal(err)
			}
			var text, author string
			if err := client.QueryRow("SELECT text, author_email FROM `People$comments` WHERE record_id = ? AND text = ?", rec, "via "+mode.name).Scan(&text, &author); err != nil || author != "ada@example.com" {
				t.Errorf("comment read back: %q by %q, %v", text, author, err)
			}
			if _, err := client.Exec("UPDATE People SET Photo = LOAD_FILE('note.txt') WHERE id = ?", rec); err != nil {
				t.Fatal(err)
			}
			var photo string
			if err := client.QueryRow("SELECT Photo FROM People WHERE id = ?", rec).Scan(&photo); err != nil || !strings.Contains(photo, `"filename":"note.txt"`) {
				t.Errorf("Photo after LOAD_FILE: %s, %v", photo, err)
			}
			var user string
			if err := client.QueryRow("SELECT CURRENT_USER()").Scan(&user); err != nil || user != "ada@example.com" {
				t.Errorf("CURRENT_USER(): %q, %v", user, err)
			}
		})
	}
}
