#!/usr/bin/env bash
# The README's curl walk-through as one script: every product once, against a running service.
#   examples/walkthrough.sh                      # the service of `npm start` (http://127.0.0.1:3000, .data/admin-key)
#   SWITCHBOARD_URL=… ADMIN_KEY=… examples/walkthrough.sh
# A webhook receiver at RECEIVER_URL (default http://127.0.0.1:8787/webhooks, examples/webhook-receiver) gets a test
# event; without one, its delivery is retried and the log shows the failed attempt.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${SWITCHBOARD_URL:-http://127.0.0.1:3000}
if [ -z "${ADMIN_KEY:-}" ] && [ ! -f "${DATA_DIR:-.data}/admin-key" ]; then
  echo "No admin key: set ADMIN_KEY, or DATA_DIR to the service's data folder (${DATA_DIR:-.data}/admin-key is missing)" >&2
  exit 1
fi
ADMIN=${ADMIN_KEY:-$(cat "${DATA_DIR:-.data}/admin-key")}
AUTH="Authorization: Bearer $ADMIN"
RECEIVER_URL=${RECEIVER_URL:-http://127.0.0.1:8787/webhooks}

# curl that fails on an HTTP error and shows its body; json FIELD reads one field of a JSON answer, or fails showing it.
call() { curl -sS --fail-with-body "$@"; }
json() {
  node -e 'const s = require("fs").readFileSync(0, "utf8"); let v;
    try { v = JSON.parse(s)[process.argv[1]]; } catch {}
    if (v === undefined) { console.error(`no "${process.argv[1]}" in: ${s}`); process.exit(1); }
    console.log(typeof v === "string" ? v : JSON.stringify(v));' "$1"
}
step() { printf '\n== %s\n' "$*"; }

step "1. A project and its API token (shown once)"
PROJECT=$(call -X POST "$BASE/admin/v1/projects" -H "$AUTH" \
  -d '{"companyId":1042,"name":"Acme","monthlyBotCredits":100}' | json projectId)
API_TOKEN=$(call -X POST "$BASE/admin/v1/projects/$PROJECT/api-token" -H "$AUTH" | json token)
echo "project $PROJECT"

step "2. An SMS channel on the sandbox provider (messages land in its outbox)"
CHANNEL=$(call -X POST "$BASE/admin/v1/projects/$PROJECT/channels" -H "$AUTH" \
  -d '{"type":"sms","name":"Alerts","address":"+5511977776666","credits":100}' | json channelId)
echo "channel $CHANNEL"

step "3. A custom integration on that channel: its token sends"
SEND_TOKEN=$(call -X POST "$BASE/admin/v1/projects/$PROJECT/integrations" -H "$AUTH" \
  -d "{\"product\":\"custom\",\"channelId\":\"$CHANNEL\"}" | json token)

step "4. Send, then read the outbox"
call -X POST "$BASE/api/integration/generic" -H "Authorization: Bearer $SEND_TOKEN" \
  -H 'Content-Type: application/json' -d '{"to":"+5511988887777","body":"Your order has shipped"}'
echo
call "$BASE/admin/v1/projects/$PROJECT/channels/$CHANNEL/outbox" -H "$AUTH"
echo

step "5. A webhook to $RECEIVER_URL, a test event, and its delivery log"
WEBHOOK=$(call -X POST "$BASE/admin/v1/projects/$PROJECT/integrations" -H "$AUTH" \
  -d "{\"product\":\"webhook\",\"scope\":\"general\",\"url\":\"$RECEIVER_URL\",\"bearerToken\":\"my-receiver-token\"}")
WEBHOOK_ID=$(echo "$WEBHOOK" | json integrationId)
echo "signing secret $(echo "$WEBHOOK" | json signingSecret) (give it to the receiver: SIGNING_SECRET)"
call -X POST "$BASE/admin/v1/projects/$PROJECT/integrations/$WEBHOOK_ID/test" -H "$AUTH"
echo
for _ in $(seq 1 60); do
  DELIVERIES=$(call "$BASE/admin/v1/projects/$PROJECT/integrations/$WEBHOOK_ID/deliveries" -H "$AUTH")
  # The test event's first attempt; the log may also hold the send's message.sent, if its event reached the webhook.
  echo "$DELIVERIES" | grep -Eq '"eventType":"webhook\.test","status":"[a-z]+","attempts":\[\{' && break
  sleep 0.5
done
echo "$DELIVERIES"

step "6. A bot with a knowledge file, ready once ingested"
BOT=$(call -X POST "$BASE/admin/v1/projects/$PROJECT/bots" -H "$AUTH" \
  -d '{"name":"Support","instructions":"Answer in one short sentence using the knowledge base."}' | json botId)
call -X PUT "$BASE/admin/v1/projects/$PROJECT/bots/$BOT/knowledge/refunds.md" -H "$AUTH" \
  -H 'Content-Type: text/markdown' --data-binary $'# Refunds\n\nRefunds take five business days after the return arrives.\n'
echo
for attempt in $(seq 1 120); do
  KNOWLEDGE=$(call "$BASE/admin/v1/projects/$PROJECT/bots/$BOT/knowledge" -H "$AUTH")
  case "$KNOWLEDGE" in
    *'"status":"ready"'*) break ;;
    *'"status":"failed"'*) echo "ingestion failed: $KNOWLEDGE" >&2; exit 1 ;;
  esac
  [ "$attempt" = 120 ] && { echo "not ready after 60 s: $KNOWLEDGE" >&2; exit 1; }
  sleep 0.5
done
echo "$KNOWLEDGE"

step "7. Search (free), completion and extract (1 bot credit each)"
call -X POST "$BASE/api/v1/ai/search" -H "Authorization: Bearer $API_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"botId\":\"$BOT\",\"query\":\"how long do refunds take\",\"topK\":3}"
echo
call -X POST "$BASE/api/v1/ai/completion" -H "Authorization: Bearer $API_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"botId\":\"$BOT\",\"prompt\":\"How long do refunds take?\"}"
echo
call -X POST "$BASE/api/v1/ai/extract" -H "Authorization: Bearer $API_TOKEN" -F file=@examples/invoice.pdf -F mode=text
echo

step "8. The same bot in OpenAI's wire format, streamed"
call -N -X POST "$BASE/api/v1/ai/chat/completions" -H "Authorization: Bearer $API_TOKEN" \
  -H 'Content-Type: application/json' \
  -d "{\"model\":\"$BOT\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"How long do refunds take?\"}]}"

step "9. What is left"
call "$BASE/api/v1/ai/health" -H "Authorization: Bearer $API_TOKEN"
echo
