# What both Bazel legs (tests/bazel/run.sh, tests/bzlmod/run.sh) need to
# build against a remote cache or remote executor, sourced by each. It uses
# the caller's $scratch (a private directory) and its ok/bad counters.
# The remote-execution worker itself, with the SDKs hidden from it, is
# tests/remote/worker.sh.

# nginx as a Bazel HTTP cache (WebDAV PUT) on a free loopback port, storing
# under $scratch/cache. Sets port and nginx_conf (empty when nginx did not
# start, after reporting it as a failure); returns non-zero then.
nginx_cache_up() {
  mkdir -p "$scratch/nginx/logs" "$scratch/nginx/tmp" "$scratch/cache"
  # nginx's workers drop to an unprivileged user: they write the cache.
  chmod 0777 "$scratch/cache" "$scratch/nginx/tmp"
  chmod 0755 "$scratch"
  port=""
  nginx_conf="$scratch/nginx/nginx.conf"
  local p
  for _ in 1 2 3 4 5; do
    p=$((20000 + (RANDOM % 30000)))
    cat >"$nginx_conf" <<NGINX
worker_processes 1;
pid $scratch/nginx/nginx.pid;
error_log $scratch/nginx/logs/error.log;
events { worker_connections 64; }
http {
  access_log $scratch/nginx/logs/access.log;
  client_body_temp_path $scratch/nginx/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$p;
    location / {
      root $scratch/cache;
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:rw all:r;
    }
  }
}
NGINX
    if nginx -p "$scratch/nginx" -c "$nginx_conf" 2>"$scratch/nginx/start.err"; then
      port=$p
      return 0
    fi
  done
  nginx_conf=""
  bad "nginx did not start: $(cat "$scratch/nginx/start.err")"
  return 1
}

# Stops the nginx of nginx_cache_up, if it runs (for the callers' traps).
nginx_cache_down() {
  if [ -n "${nginx_conf:-}" ]; then
    nginx -p "$scratch/nginx" -c "$nginx_conf" -s stop 2>/dev/null || true
  fi
}

# Bazel's last "INFO: N processes: ..." line of a log.
processes() { grep -oE 'INFO: [0-9]+ processes: .*' "$1" | tail -1; }

# The parts of such a line that ran neither remotely nor inside Bazel
# (nor came from the remote cache): empty when nothing ran locally.
ran_locally() {
  sed -E 's/^INFO: [0-9]+ processes: //; s/\.$//' <<<"$1" | tr ',' '\n' |
    grep -vE ' (internal|remote|remote cache hit)$' | tr -d '\n'
}
