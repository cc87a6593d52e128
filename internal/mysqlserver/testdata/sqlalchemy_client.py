"""SQLAlchemy (MySQL dialect over PyMySQL) and pandas against a MySQL server, driven by
sqlalchemy_test.go, which runs it once against `airsql serve` and once against MariaDB holding the
same data, and compares the two answers.

usage: sqlalchemy_client.py URL SCHEMA < job.json

URL is an SQLAlchemy URL (mysql+pymysql://…); SCHEMA the database the URL names, used for the
schema= forms (three-part names). job.json is {"init": SQL run on every connection or "",
"tables": [names to reflect], "core": [{"name", "table", "schema"}], "orm": [same],
"reports": [{"name", "sql"}]}. The script prints one JSON object: what each step answered, or
{"error": message} for a step that failed, so that one failure does not hide the others.
"""
import datetime
import decimal
import json
import math
import sys

import pandas
import sqlalchemy
from sqlalchemy import MetaData, Table, inspect, select
from sqlalchemy.orm import Session, declarative_base

url, schema = sys.argv[1], sys.argv[2]
job = json.load(sys.stdin)

connect_args = {}
if job.get("init"):
    connect_args["init_command"] = job["init"]
engine = sqlalchemy.create_engine(url, connect_args=connect_args)


def plain(v):
    """A cell as JSON: dates and times in ISO form, decimals as text, NaN/NaT as None."""
    if v is None:
        return None
    if isinstance(v, pandas.Timestamp):
        return None if pandas.isna(v) else v.isoformat()
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return str(v)
    if isinstance(v, decimal.Decimal):
        return "Decimal:" + str(v)
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (set, frozenset)):  # SQLAlchemy's SET type reads a value as a set
        return {"set": sorted(plain(x) for x in v)}
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if hasattr(v, "item"):  # a numpy scalar
        return plain(v.item())
    return v


def step(f):
    try:
        return f()
    except Exception as e:  # the answer names what failed; the Go test shows it
        return {"error": type(e).__name__ + ": " + str(e).splitlines()[0]}


def column(c):
    t = c["type"]
    return {"name": c["name"], "type": type(t).__name__, "sql": str(t), "nullable": c["nullable"]}


out = {}
insp = inspect(engine)
out["schemas"] = step(insp.get_schema_names)
out["default_schema"] = step(lambda: insp.default_schema_name)
out["tables"] = step(lambda: insp.get_table_names())
out["tables_schema"] = step(lambda: insp.get_table_names(schema=schema))
out["views"] = step(lambda: insp.get_view_names())
out["has_table"] = step(lambda: [engine.dialect.has_table(c, n) for c in [engine.connect()] for n in job["tables"] + ["Nope"]])
out["reflect"] = {}
for name in job["tables"]:
    out["reflect"][name] = {
        "columns": step(lambda: [column(c) for c in insp.get_columns(name)]),
        "columns_schema": step(lambda: [column(c) for c in insp.get_columns(name, schema=schema)]),
        "pk": step(lambda: insp.get_pk_constraint(name)),
        "fks": step(lambda: [{"columns": fk["constrained_columns"], "referred_table": fk["referred_table"],
                              "referred_columns": fk["referred_columns"]} for fk in insp.get_foreign_keys(name)]),
        "indexes": step(lambda: insp.get_indexes(name)),
        "unique": step(lambda: insp.get_unique_constraints(name)),
        "checks": step(lambda: insp.get_check_constraints(name)),
        "comment": step(lambda: insp.get_table_comment(name)),
    }


def rows_of(result):
    return [[plain(v) for v in r] for r in result]


def core(q):
    """A Core select of the reflected table: a filter, IS NOT DISTINCT FROM (<=>), an order and a limit."""
    meta = MetaData(schema=schema if q["schema"] else None)
    declared = [sqlalchemy.Column(n, sqlalchemy.JSON) for n in q.get("json", [])]
    t = Table(q["table"], meta, *declared, autoload_with=engine)
    cols = [t.c[n] for n in q["columns"]]
    stmt = select(*cols).where(sqlalchemy.not_(t.c[q["where"]].is_not_distinct_from(None))).order_by(t.c.id).limit(8)
    sql = str(stmt.compile(engine))
    with engine.connect() as conn:
        result = conn.execute(stmt)
        return {"sql": sql, "columns": list(result.keys()), "rows": rows_of(result)}


def orm(q):
    """An ORM query of a class mapped onto the reflected table."""
    Base = declarative_base()
    meta = MetaData(schema=schema if q["schema"] else None)
    table = Table(q["table"], meta, autoload_with=engine)
    cls = type("Mapped" + q["table"], (Base,), {"__table__": table})
    with Session(engine) as s:
        objs = s.query(cls).filter(getattr(cls, q["where"]).isnot(None)).order_by(cls.id).limit(5).all()
        return {"rows": [[plain(getattr(o, n)) for n in q["columns"]] for o in objs]}


def fk_join():
    """A Core join whose ON SQLAlchemy infers from the reflected foreign key (Items.Owner, a link,
    to People.id), and a GROUP BY over it; "junction" joins MariaDB's copy through its
    junction table instead, which has no foreign key."""
    meta = MetaData()
    items = Table("Items", meta, autoload_with=engine)
    people = Table("People", meta, autoload_with=engine)
    if job.get("junction"):
        owner = Table("Items__Owner", meta, autoload_with=engine)
        joined = items.join(owner, owner.c.id == items.c.id).join(people, people.c.id == owner.c.linked_id)
    else:
        joined = items.join(people)
    n = sqlalchemy.func.count(items.c.id).label("items")
    stmt = (select(people.c.id, people.c.Name, n).select_from(joined).where(items.c.Qty > 0)
            .group_by(people.c.id, people.c.Name).order_by(n.desc(), people.c.id).limit(10))
    with engine.connect() as conn:
        result = conn.execute(stmt)
        return {"sql": str(stmt.compile(engine)), "columns": list(result.keys()), "rows": rows_of(result)}


out["core"] = {q["name"]: step(lambda: core(q)) for q in job["core"]}
out["core"]["join on the foreign key"] = step(fk_join)
out["orm"] = {q["name"]: step(lambda: orm(q)) for q in job["orm"]}


def report(q):
    df = pandas.read_sql(sqlalchemy.text(q["sql"]), engine)
    return {"columns": list(df.columns), "dtypes": [str(d) for d in df.dtypes],
            "rows": [[plain(v) for v in r] for r in df.itertuples(index=False, name=None)]}


out["reports"] = {q["name"]: step(lambda: report(q)) for q in job["reports"]}
print(json.dumps(out))
