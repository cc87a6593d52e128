package airsql

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFileUploads: LOAD_FILE in INSERT and UPDATE uploads the file into the attachment
// column (one uploadAttachment per file), only from inside secureFilePriv.
func TestLoadFileUploads(t *testing.T) {
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	if err := os.MkdirAll(filepath.Join(allowed, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(allowed, "face.png"), "\x89PNG\r\n\x1a\nnot really")
	write(filepath.Join(allowed, "sub", "cv.txt"), "curriculum")
	write(filepath.Join(dir, "secret.txt"), "outside")
	if err := os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(allowed, "link.txt")); err != nil {
		t.Fatal(err)
	}
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "secureFilePriv="+url.QueryEscape(allowed))

	srv.ResetRequests()
	res, err := db.Exec("INSERT INTO `Team Members` (`Full Name`, Photo) VALUES ('Ann', LOAD_FILE(?)), ('Bob', NULL)", filepath.Join(allowed, "face.png"))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("INSERT affected %d, want 2", n)
	}
	var lines []string
	for _, r := range srv.Requests() {
		if r.Method == "POST" {
			lines = append(lines, r.Path)
		}
	}
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "/fldMEMBERPHOTO001/uploadAttachment") {
		t.Errorf("requests %q, want the create then one upload", lines)
	}
	var photo string
	if err := db.QueryRow("SELECT Photo FROM `Team Members` WHERE `Full Name` = 'Ann'").Scan(&photo); err != nil ||
		!strings.Contains(photo, `"filename":"face.png"`) || !strings.Contains(photo, `"type":"image/png"`) {
		t.Errorf("Ann's photo: %s, %v", photo, err)
	}

	// UPDATE replaces the column's attachments with the file (a relative path is read from the
	// allowed directory, as in MySQL).
	if _, err := db.Exec("UPDATE `Team Members` SET Photo = LOAD_FILE('sub/cv.txt') WHERE `Full Name` IN ('Ann', 'Bob')"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT Photo FROM `Team Members` WHERE `Full Name` IN ('Ann', 'Bob')")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range scanAll(t, rows) {
		s, _ := r[0].(string)
		if strings.Count(s, `"filename"`) != 1 || !strings.Contains(s, `"filename":"cv.txt"`) {
			t.Errorf("after UPDATE: %s, want cv.txt alone", s)
		}
	}

	srv.ResetRequests()
	for stmt, want := range map[string]string{
		"UPDATE `Team Members` SET Photo = LOAD_FILE('../secret.txt') WHERE `Full Name` = 'Ann'":            "outside the secureFilePriv directory",
		"UPDATE `Team Members` SET Photo = LOAD_FILE('link.txt') WHERE `Full Name` = 'Ann'":                 "outside the secureFilePriv directory",
		"UPDATE `Team Members` SET Photo = LOAD_FILE('" + filepath.Join(dir, "secret.txt") + "') WHERE 1=1": "outside the secureFilePriv directory",
		"UPDATE `Team Members` SET Photo = LOAD_FILE('nope.txt') WHERE 1=1":                                 "no such file",
		"UPDATE `Team Members` SET `Full Name` = LOAD_FILE('sub/cv.txt') WHERE 1=1":                         "attachment column",
		"UPDATE `Team Members` SET Photo = CONCAT(LOAD_FILE('sub/cv.txt')) WHERE 1=1":                       "inside an expression",
		"UPDATE `Team Members` SET Photo = LOAD_FILE(`Full Name`) WHERE 1=1":                                "must not read the table",
	} {
		if _, err := db.Exec(stmt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an error saying %q", stmt, err, want)
		}
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			t.Errorf("a refused LOAD_FILE sent %s %s", r.Method, r.Path)
		}
	}

	off, _ := openDB(t, srv, "")
	if _, err := off.Exec("UPDATE `Team Members` SET Photo = LOAD_FILE('sub/cv.txt') WHERE 1=1"); err == nil || !strings.Contains(err.Error(), "secureFilePriv") {
		t.Errorf("LOAD_FILE without secureFilePriv: %v; want a refusal naming the DSN key", err)
	}
}
