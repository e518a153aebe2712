-- k10s diff: compare the facts of every configuration facet (d_facts) between the sides.
-- A subject (GPU, node, job, rank, queue) on one side only is one 'present' change; an
-- attribute unknown on a side (value NULL) is not comparable; an attribute absent on a
-- side where the subject is present (a label removed) reads '(none)'. With one baseline run
-- the value sets must be equal; with several, the bundle's values must all have been seen.
-- output: facet, scope, subject, node, gpu, rank, attribute, baseline, current, changed, comparable
WITH a AS (
    SELECT facet, scope, subject, attribute, side,
           coalesce(list(DISTINCT value ORDER BY value) FILTER (WHERE value IS NOT NULL), []) AS vals,
           min(node) AS node, min(gpu) AS gpu, min(rank) AS rank
    FROM d_facts GROUP BY ALL
),
pres AS (
    SELECT facet, scope, subject, bool_or(side = 'base') AS in_base, bool_or(side = 'cur') AS in_cur
    FROM d_facts WHERE attribute = 'present' GROUP BY ALL
),
j AS (
    SELECT coalesce(c.facet, b.facet) AS facet, coalesce(c.scope, b.scope) AS scope, coalesce(c.subject, b.subject) AS subject,
           coalesce(c.node, b.node) AS node, coalesce(c.gpu, b.gpu) AS gpu, coalesce(c.rank, b.rank) AS rank,
           coalesce(c.attribute, b.attribute) AS attribute, b.vals AS bv, c.vals AS cv
    FROM (SELECT * FROM a WHERE side = 'base') b
    FULL JOIN (SELECT * FROM a WHERE side = 'cur') c USING (facet, scope, subject, attribute)
)
SELECT j.facet, j.scope, j.subject, j.node, j.gpu, j.rank, j.attribute,
       CASE WHEN j.attribute = 'present' THEN CASE WHEN coalesce(p.in_base, true) THEN 'present' ELSE 'absent' END
            WHEN j.bv IS NULL THEN '(none)' WHEN len(j.bv) = 0 THEN '(unknown)' ELSE array_to_string(j.bv, ', ') END AS baseline,
       CASE WHEN j.attribute = 'present' THEN CASE WHEN coalesce(p.in_cur, true) THEN 'present' ELSE 'absent' END
            WHEN j.cv IS NULL THEN '(none)' WHEN len(j.cv) = 0 THEN '(unknown)' ELSE array_to_string(j.cv, ', ') END AS current,
       CASE WHEN j.attribute = 'present' THEN coalesce(p.in_base, true) IS DISTINCT FROM coalesce(p.in_cur, true)
            WHEN NOT (coalesce(p.in_base, true) AND coalesce(p.in_cur, true)) THEN false
            WHEN len(coalesce(j.bv, [])) = 0 AND len(coalesce(j.cv, [])) = 0 THEN false
            WHEN (j.bv IS NOT NULL AND len(j.bv) = 0) OR (j.cv IS NOT NULL AND len(j.cv) = 0) THEN false
            WHEN (SELECT runs FROM d_meta) > 1 THEN NOT list_has_all(coalesce(j.bv, []), coalesce(j.cv, ['(none)']))
            ELSE j.bv IS DISTINCT FROM j.cv END AS changed,
       CASE WHEN j.attribute = 'present' THEN true
            WHEN NOT (coalesce(p.in_base, true) AND coalesce(p.in_cur, true)) THEN false
            WHEN (j.bv IS NOT NULL AND len(j.bv) = 0) OR (j.cv IS NOT NULL AND len(j.cv) = 0) THEN false
            ELSE true END AS comparable
FROM j LEFT JOIN pres p USING (facet, scope, subject)
