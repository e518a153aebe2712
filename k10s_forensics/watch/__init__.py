"""``k10s watch``: a read-only watcher that captures a bundle the moment an incident happens.

Modules: config (YAML keys and flags), kubeapi (HTTP client), informer (list + watch),
triggers (changes and log lines -> triggers), logfollow (log streams within a budget),
alerts (Alertmanager and manual bodies), incidents (cooldown, limits, concurrency), runner
(capture, analyze, report), store (folders, retention, listing), page (index page and list
text), notify (webhook, Event), metrics, httpd, watcher (the whole). See docs/watch.md.
"""
