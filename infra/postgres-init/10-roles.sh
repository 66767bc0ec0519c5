#!/bin/sh
# docker-compose.yml's PostgreSQL, on its first start (an empty data volume): the owner role that
# runs the migrations and owns the tables (CREATEROLE for the roles the migrations create), the
# app's login role for the API and the worker (no attributes: owns nothing; the migrations give it
# DML through app_runtime), and the database, owned by the owner. The superuser (POSTGRES_USER)
# is for administrators only; nothing of the service connects as it.
# test/api/database-roles.test.ts migrates under the same statements.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v owner_password="$POSTGRES_OWNER_PASSWORD" -v app_password="$POSTGRES_APP_PASSWORD" <<'SQL'
create role industrial_ops login nosuperuser createrole nocreatedb noreplication nobypassrls password :'owner_password';
create role industrial_ops_app login nosuperuser nocreaterole nocreatedb noreplication nobypassrls password :'app_password';
create database industrial_ops owner industrial_ops;
\connect industrial_ops
-- The audit purge role must come to own its function (db/migrations/20261125200000_audit_purge_role.ts):
-- that takes an owner able to become it, and CREATE on the schema for it (a later migration revokes that).
create role audit_purger nologin;
grant create on schema public to audit_purger;
grant audit_purger to industrial_ops with inherit false, set true;
SQL
