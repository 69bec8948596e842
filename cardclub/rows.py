"""Plain SQL statements for the few reads and writes every request or move makes (issue 34).

Building a query through the ORM (cloning the queryset, resolving the filter, compiling the
SQL) costs far more than running it: measured in one process, a member read by primary key was
0.70 ms of CPU through ``objects.get`` and 0.13 ms through a cursor on PostgreSQL (0.22 and
0.02 ms on SQLite). The session, the member and a table's version row are read on every
request, so they are read here: the same SQL the ORM would send, its values converted by the
fields' own database converters (an aware datetime on SQLite too), the model built with
``from_db`` as the ORM builds it.
"""

from __future__ import annotations

from functools import cache

from django.db import connections


@cache
def _statement(model, fields: tuple[str, ...], where: str, using: str) -> str:
    quote = connections[using].ops.quote_name
    return (
        f"SELECT {columns(model, fields, using)} FROM {quote(model._meta.db_table)} WHERE {where}"
    )


def _converters(connection, model, fields: tuple[str, ...]):
    found = []
    for index, name in enumerate(fields):
        column = model._meta.get_field(name).get_col(model._meta.db_table)
        every = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if every:
            found.append((index, column, every))
    return found


_kept_converters: dict = {}


def _kept(connection, model, fields: tuple[str, ...], using: str):
    key = (model, fields, using)
    converters = _kept_converters.get(key)
    if converters is None:
        converters = _kept_converters[key] = _converters(connection, model, fields)
    return converters


def _run(sql: str, params, using: str, answer):
    """``answer(cursor)`` after running a plain statement on the backend's own cursor, as
    Django's ``connection.cursor()`` makes it (the connection opened, health-checked and checked
    for this thread; database errors as Django's), without the wrapper around it: its execute
    wrappers cost as much CPU as SQLite's answer. When a query is logged (``DEBUG``, a test
    counting queries) or an execute wrapper is installed, the statement goes through Django's
    cursor, so each one is seen as before."""
    connection = connections[using]
    if connection.queries_logged or connection.execute_wrappers:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return answer(cursor)
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        cursor = connection.create_cursor()
        try:
            cursor.execute(sql, params)
            return answer(cursor)
        finally:
            cursor.close()


def row(sql: str, params, using: str = "default"):
    """The first row of a plain statement (its values as the driver gives them), or ``None``."""
    return _run(sql, params, using, lambda cursor: cursor.fetchone())


def every(sql: str, params, using: str = "default") -> list:
    """Every row of a plain statement, as the driver gives them."""
    return _run(sql, params, using, lambda cursor: cursor.fetchall())


def execute(sql: str, params, using: str = "default") -> int:
    """Run a plain ``UPDATE`` or ``DELETE``; how many rows it changed."""
    return _run(sql, params, using, lambda cursor: cursor.rowcount)


def _saved(obj, fields: tuple[str, ...], adding: bool, using: str) -> list:
    """``fields`` of ``obj`` as the ORM saves them: each field's ``pre_save`` (an ``auto_now``
    or ``auto_now_add``), then its preparation for the database."""
    connection = connections[using]
    meta = obj._meta
    return [
        field.get_db_prep_save(field.pre_save(obj, adding), connection)
        for field in (meta.get_field(name) for name in fields)
    ]


def insert(model, fields: tuple[str, ...], objects, using: str = "default") -> None:
    """Insert ``objects`` of ``model`` by one plain statement, their ``fields`` as the ORM
    would save them (each field's ``pre_save``, e.g. an ``auto_now_add``, and its preparation
    for the database), without reading their ids back."""
    params = [value for obj in objects for value in _saved(obj, fields, True, using)]
    execute(_insert_statement(model, fields, len(objects), using), params, using)


@cache
def _insert_statement(model, fields: tuple[str, ...], count: int, using: str) -> str:
    quote = connections[using].ops.quote_name
    row_of = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns(model, fields, using)})"
        f" VALUES {', '.join([row_of] * count)}"
    )


def update(instance, fields: tuple[str, ...], using: str = "default") -> int:
    """Write ``fields`` of ``instance`` to its row by one plain ``UPDATE``, each as the ORM
    saves it (the field's ``pre_save``, e.g. an ``auto_now``, and its preparation for the
    database); how many rows it changed. No signal is sent: the caller sends what a save
    would (``Match.write``)."""
    params = [*_saved(instance, fields, False, using), instance.pk]
    return execute(_update_statement(type(instance), fields, using), params, using)


@cache
def _update_statement(model, fields: tuple[str, ...], using: str) -> str:
    quote = connections[using].ops.quote_name
    meta = model._meta
    # A field that writes itself with its own SQL placeholder is not one this statement knows.
    assert not any(hasattr(meta.get_field(name), "get_placeholder") for name in fields), fields
    assignments = ", ".join(f"{quote(meta.get_field(name).column)} = %s" for name in fields)
    return f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"


def scalar(sql: str, params, using: str = "default"):
    """The first column of the first row of a plain statement (a ``COUNT``, one id), or ``None``
    when there is no row."""
    found = row(sql, params, using)
    return None if found is None else found[0]


def values(model, fields: tuple[str, ...], where: str, params, using: str = "default"):
    """The first row's values of ``fields`` where ``where`` (SQL on the table's columns,
    ``%s`` placeholders; adapt datetimes with ``connection.ops``), or ``None``."""
    found = row(_statement(model, fields, where, using), params, using)
    return None if found is None else read_as(model, fields, found, using)


def read_as(model, fields: tuple[str, ...], found, using: str = "default"):
    """``found``, the driver's values of ``fields`` of ``model`` in that order, as the ORM would
    read them (each field's database converters applied)."""
    connection = connections[using]
    converters = _kept(connection, model, fields, using)
    if converters:
        found = list(found)
        for index, column, every in converters:
            for convert in every:
                found[index] = convert(found[index], column, connection)
    return found


@cache
def concrete(model) -> tuple[str, ...]:
    """Every column of ``model`` as ``from_db`` takes them all: the fields' attnames, in order."""
    return tuple(field.attname for field in model._meta.concrete_fields)


@cache
def columns(model, fields: tuple[str, ...], using: str, prefix: str = "") -> str:
    """``fields`` of ``model`` as a statement's column list, each quoted and behind ``prefix``
    (a table's alias and its dot, for a join)."""
    quote = connections[using].ops.quote_name
    return ", ".join(prefix + quote(model._meta.get_field(name).column) for name in fields)


def column(model, name: str, alias: str, using: str = "default") -> str:
    """One field's column behind a table's alias (``m."username"``), for a join's clauses."""
    return columns(model, (name,), using, f"{alias}.")


def built(model, fields: tuple[str, ...], found, using: str = "default"):
    """The instance of ``model`` from ``found``, the driver's values of ``fields``, as the ORM
    builds it."""
    return model.from_db(using, list(fields), read_as(model, fields, found, using))


def instance(model, fields: tuple[str, ...], where: str, params, using: str = "default"):
    """The model instance of the first row where ``where`` (its ``fields`` loaded), or ``None``."""
    found = values(model, fields, where, params, using)
    return None if found is None else model.from_db(using, list(fields), found)


def converted(model, name: str, value, using: str = "default"):
    """``value`` as the ORM would read it from the column of ``model``'s field ``name`` (also the
    result of ``MAX`` over it): an aware datetime on SQLite too, ``None`` left alone."""
    if value is None:
        return None
    connection = connections[using]
    for _index, column, every in _kept(connection, model, (name,), using):
        for convert in every:
            value = convert(value, column, connection)
    return value
