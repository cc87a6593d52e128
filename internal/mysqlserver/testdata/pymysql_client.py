"""PyMySQL against `airsql serve`, driven by clients_test.go.

usage: pymysql_client.py HOST PORT USER PASSWORD DB basic|cancel

basic prints one JSON object with what each step read; cancel runs a query that the test holds
in the server, reads a line from stdin (the test's "it is running"), kills the query with
COM_PROCESS_KILL from a second connection (PyMySQL's Connection.kill) and prints the error.
"""
import datetime
import json
import sys
import threading

import pymysql

host, port, user, password, db, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]


def connect():
    # PyMySQL's defaults: it sends SET AUTOCOMMIT = 0, so writes wait for commit(), as on MySQL.
    return pymysql.connect(host=host, port=port, user=user, password=password, database=db)


def plain(v):
    if isinstance(v, (datetime.date, datetime.datetime)):
        return type(v).__name__ + ":" + v.isoformat()
    return v


def basic():
    out = {}
    conn = connect()
    with conn.cursor() as cur:
        cur.execute("SELECT Name, Priority FROM Tasks WHERE Priority >= %s ORDER BY Priority DESC, Name LIMIT 5", (4,))
        out["reads"] = [list(r) for r in cur.fetchall()]
        cur.execute("SELECT Name, Priority, `Estimate Hours`, Done, Due, `Started At`, Tags, Notes FROM Tasks WHERE Name = %s", ("Refactor billing export #2",))
        row = cur.fetchone()
        out["types"] = [type(v).__name__ for v in row]
        out["values"] = [plain(v) for v in row]
        out["columns"] = [d[0] for d in cur.description]
        out["inserted"] = cur.execute("INSERT INTO People (Name, Email) VALUES (%s, %s)", ("Py Person", "py@example.com"))
        out["updated"] = cur.execute("UPDATE People SET Email = %s WHERE Name = %s", ("py@python.org", "Py Person"))
        cur.execute("SELECT Email FROM People WHERE Name = %s", ("Py Person",))
        out["email"] = cur.fetchone()[0]
        out["deleted"] = cur.execute("DELETE FROM People WHERE Name = %s", ("Py Person",))
        conn.commit()
        out["reports"] = []
        for q in ["SELECT Status, COUNT(*) AS n FROM Tasks GROUP BY Status ORDER BY Status",
                  "SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee ORDER BY t.Name, p.Name LIMIT 5"]:
            cur.execute(q)
            out["reports"].append([list(r) for r in cur.fetchall()])
        errors = []
        for q in ["SELECT Nope FROM Tasks", "SELECT Name FROM Nope", "SELEC 1", "SELECT Name FROM Tasks FOR UPDATE"]:
            try:
                cur.execute(q)
                errors.append(None)
            except pymysql.MySQLError as e:
                errors.append(e.args[0])
        out["errors"] = errors
        cur.execute("SELECT COUNT(*) FROM People")
        out["after_errors"] = cur.fetchone()[0]
    conn.ping()
    conn.select_db(db)
    out["ping_and_init_db"] = True
    conn.close()
    print(json.dumps(out))


def cancel():
    conn = connect()
    result = {}

    def run():
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT Name FROM Tasks WHERE Name = %s", ("block-me",))
                result["rows"] = len(cur.fetchall())
        except pymysql.MySQLError as e:
            result["error"] = e.args[0]

    t = threading.Thread(target=run)
    t.start()
    sys.stdin.readline()
    killer = connect()
    killer.kill(conn.thread_id())
    killer.close()
    t.join()
    print(json.dumps(result))


{"basic": basic, "cancel": cancel}[mode]()
