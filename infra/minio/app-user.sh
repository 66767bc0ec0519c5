#!/bin/sh
# One-shot (docker-compose.yml, service minio-app-user): the bucket, a policy limited to it
# (app-policy.json) and the app's own user with that policy. The API and the workers get this
# user's keys, never the root credentials. Idempotent: every start of the stack runs it again.
set -eu
mc alias set local http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null
mc mb --ignore-existing "local/$S3_BUCKET"
mc admin policy create local industrial-ops-app /etc/industrial-ops/app-policy.json
mc admin user add local "$S3_ACCESS_KEY" "$S3_SECRET_KEY"
# Attaching twice is an error: attach only when the user does not hold the policy yet.
mc admin user info local "$S3_ACCESS_KEY" | grep -q 'industrial-ops-app' || mc admin policy attach local industrial-ops-app --user "$S3_ACCESS_KEY"
echo "bucket $S3_BUCKET and user $S3_ACCESS_KEY ready"
