import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;

// A JDBC client of `airsql serve` (MariaDB Connector/J, as DBeaver and Metabase use it), run by
// TestJDBC: java JdbcClient <jdbc url>. It prints one line per fact, "section<TAB>values…" (tabs,
// newlines and backslashes in values escaped), which the test compares with the driver's answers.
public class JdbcClient {
    static String esc(String s) {
        if (s == null) {
            return "NULL";
        }
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    static void line(String section, Object... values) {
        StringBuilder b = new StringBuilder(section);
        for (Object v : values) {
            b.append('\t').append(esc(v == null ? null : v.toString()));
        }
        System.out.println(b);
    }

    // rows prints each row of a result, every value read with getString.
    static void rows(String section, ResultSet rs) throws SQLException {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            Object[] vals = new Object[n];
            for (int i = 1; i <= n; i++) {
                vals[i - 1] = rs.getString(i);
            }
            line(section, vals);
        }
    }

    // columns prints a result's column names and JDBC type names.
    static void columns(String section, ResultSetMetaData md) throws SQLException {
        if (md == null) {
            line(section, "no metadata");
            return;
        }
        for (int i = 1; i <= md.getColumnCount(); i++) {
            line(section, md.getColumnLabel(i), md.getColumnTypeName(i));
        }
    }

    static void error(String section, SQLException e) {
        line(section, e.getErrorCode(), e.getSQLState());
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            String db = c.getCatalog();
            line("catalog", db);
            try (Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT Name, Priority, Done, Due, Notes FROM Tasks WHERE Priority >= 4 ORDER BY Priority DESC, Name LIMIT 7")) {
                    columns("read columns", rs.getMetaData());
                    rows("read", rs);
                }
                try (ResultSet rs = s.executeQuery("SELECT Name, `Hourly Rate`, Active, Joined, createdTime FROM People ORDER BY Name LIMIT 1")) {
                    rs.next();
                    for (int i = 1; i <= 5; i++) {
                        line("java type", rs.getObject(i).getClass().getSimpleName());
                    }
                }
                try (ResultSet rs = s.executeQuery("SELECT Status, COUNT(*) AS n FROM Tasks GROUP BY Status ORDER BY Status")) {
                    rows("group", rs);
                }
                try (ResultSet rs = s.executeQuery("SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee ORDER BY t.Name, p.Name LIMIT 5")) {
                    rows("join", rs);
                }
                try {
                    s.executeQuery("SELECT Name FROM Nope");
                } catch (SQLException e) {
                    error("error no table", e);
                }
                try {
                    s.executeQuery("SELECT Nope FROM Tasks");
                } catch (SQLException e) {
                    error("error unknown column", e);
                }
            }

            // A prepared statement: its columns before it runs, then two executions.
            try (PreparedStatement p = c.prepareStatement("SELECT Name, Priority, Due FROM Tasks WHERE Priority >= ? AND Name LIKE ? ORDER BY Name LIMIT 5")) {
                columns("prepared columns", p.getMetaData());
                line("prepared parameters", p.getParameterMetaData().getParameterCount());
                p.setInt(1, 3);
                p.setString(2, "%report%");
                try (ResultSet rs = p.executeQuery()) {
                    rows("prepared 3", rs);
                }
                p.setInt(1, 5);
                p.setString(2, "%e%");
                try (ResultSet rs = p.executeQuery()) {
                    rows("prepared 5", rs);
                }
            }
            // A parameter whose type only the execution tells: announced as text at prepare, sent
            // as BIGINT by the execution, which the client must follow.
            try (PreparedStatement p = c.prepareStatement("SELECT ? AS x, Name FROM Tasks ORDER BY Name LIMIT ?")) {
                p.setInt(1, 42);
                p.setInt(2, 2);
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        line("untyped parameter", rs.getObject(1).getClass().getSimpleName(), rs.getLong(1), rs.getString(2));
                    }
                }
            }
            // User variables and SQL-level prepared statements, as a script would run them.
            try (Statement s = c.createStatement()) {
                s.execute("SET @p = 4");
                s.execute("PREPARE byPriority FROM 'SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Name LIMIT 3'");
                try (ResultSet rs = s.executeQuery("EXECUTE byPriority USING @p")) {
                    rows("sql prepared", rs);
                }
                s.execute("DEALLOCATE PREPARE byPriority");
                try {
                    s.executeQuery("EXECUTE byPriority USING @p");
                } catch (SQLException e) {
                    error("error unknown prepared statement", e);
                }
            }
            try (PreparedStatement p = c.prepareStatement("SELECT Nope FROM Tasks WHERE Name = ?")) {
                p.setString(1, "x");
                p.executeQuery();
            } catch (SQLException e) {
                error("error prepared unknown column", e);
            }

            // Writes, with parameters.
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO People (Name, Email) VALUES (?, ?)")) {
                ins.setString(1, "JDBC Person");
                ins.setString(2, "jdbc@example.com");
                line("inserted", ins.executeUpdate());
            }
            try (PreparedStatement upd = c.prepareStatement("UPDATE People SET Email = ? WHERE Name = ?")) {
                upd.setString(1, "jdbc@mariadb.org");
                upd.setString(2, "JDBC Person");
                line("updated", upd.executeUpdate());
            }
            try (PreparedStatement sel = c.prepareStatement("SELECT Email FROM People WHERE Name = ?")) {
                sel.setString(1, "JDBC Person");
                try (ResultSet rs = sel.executeQuery()) {
                    rows("email", rs);
                }
            }
            try (Statement s = c.createStatement()) {
                line("deleted", s.executeUpdate("DELETE FROM People WHERE Name = 'JDBC Person'"));
            }

            // What DBeaver reads on connect and when it opens a table.
            DatabaseMetaData md = c.getMetaData();
            line("product", md.getDatabaseProductName());
            try (ResultSet rs = md.getCatalogs()) {
                while (rs.next()) {
                    line("catalogs", rs.getString("TABLE_CAT"));
                }
            }
            try (ResultSet rs = md.getTables(db, null, "%", new String[] {"TABLE", "BASE TABLE"})) {
                while (rs.next()) {
                    line("tables", rs.getString("TABLE_NAME"));
                }
            }
            try (ResultSet rs = md.getColumns(db, null, "People", "%")) {
                while (rs.next()) {
                    line("columns", rs.getString("COLUMN_NAME"), rs.getString("TYPE_NAME"), rs.getString("IS_NULLABLE"));
                }
            }
            try (ResultSet rs = md.getPrimaryKeys(db, null, "People")) {
                while (rs.next()) {
                    line("primary key", rs.getString("COLUMN_NAME"));
                }
            }
            // Link fields are foreign keys; no procedures: an empty answer, not an error.
            int n = 0;
            try (ResultSet rs = md.getImportedKeys(db, null, "Tasks")) {
                while (rs.next()) {
                    n++;
                }
            }
            try (ResultSet rs = md.getProcedures(db, null, "%")) {
                while (rs.next()) {
                    n++;
                }
            }
            line("foreign keys and procedures", n);
        }
    }
}
