-- bench/dss/queries.sql — the decision-support benchmark's queries (scripts/bench-dss.sh),
-- one per line: "id | what it exercises | SQL" over the dss schema (schema.sql). Every
-- answer is deterministic (an ORDER BY under a LIMIT ends in a unique column), so stock
-- and the planner's choice with the extension are compared by count and checksum.
q01 | INTERSECT: store and web customers | SELECT c_id FROM f_sales INTERSECT SELECT c_id FROM f_web
q02 | EXCEPT: store customers never on the web | SELECT c_id FROM f_sales EXCEPT SELECT c_id FROM f_web
q03 | INTERSECT ALL of (customer, product) pairs | SELECT c_id, p_id FROM f_sales INTERSECT ALL SELECT c_id, p_id FROM f_web
q04 | EXCEPT ALL: products sold more often than returned | SELECT p_id FROM f_sales EXCEPT ALL SELECT p_id FROM f_returns
q05 | UNION of two years' products, ordered | SELECT p_id FROM f_sales s JOIN d_date d USING (d_id) WHERE d.d_year = 2019 UNION SELECT p_id FROM f_web w JOIN d_date d USING (d_id) WHERE d.d_year = 2020 ORDER BY 1
q06 | nested: (store 2019 INTERSECT web 2019) EXCEPT returners | (SELECT c_id FROM f_sales s JOIN d_date d USING (d_id) WHERE d_year = 2019 INTERSECT SELECT c_id FROM f_web w JOIN d_date d USING (d_id) WHERE d_year = 2019) EXCEPT SELECT c_id FROM f_returns
q07 | EXISTS: customers with a return, by segment | SELECT c_segment, count(*) FROM d_customer c WHERE EXISTS (SELECT 1 FROM f_returns r WHERE r.c_id = c.c_id) GROUP BY c_segment
q08 | NOT EXISTS: sales never returned, by region | SELECT s_region, sum(amount) FROM f_sales s JOIN d_store USING (s_id) WHERE NOT EXISTS (SELECT 1 FROM f_returns r WHERE r.sale_id = s.sale_id) GROUP BY s_region
q09 | IN: sales of corporate customers, by year | SELECT d_year, sum(amount) FROM f_sales s JOIN d_date USING (d_id) WHERE s.c_id IN (SELECT c_id FROM d_customer WHERE c_segment = 'corporate') GROUP BY d_year
q10 | LEFT JOIN: returned share by year | SELECT d_year, count(r.sale_id)::float8 / count(*) FROM f_sales s JOIN d_date d USING (d_id) LEFT JOIN f_returns r ON r.sale_id = s.sale_id GROUP BY d_year
q11 | four-way join: amount by region, category, year | SELECT s_region, p_category, d_year, sum(amount) FROM f_sales JOIN d_store USING (s_id) JOIN d_product USING (p_id) JOIN d_date USING (d_id) GROUP BY 1, 2, 3
q12 | fact x large dimension: by country | SELECT c_country, count(*), sum(amount) FROM f_sales JOIN d_customer USING (c_id) GROUP BY c_country
q13 | two-column join store x web (customer, product) | SELECT count(*) FROM f_sales s JOIN f_web w ON s.c_id = w.c_id AND s.p_id = w.p_id WHERE s.d_id < 30 AND w.d_id < 30
q14 | FULL JOIN of per-customer store and web totals | SELECT count(*), sum(coalesce(a.t, 0) - coalesce(b.t, 0)) FROM (SELECT c_id, sum(amount) t FROM f_sales GROUP BY c_id) a FULL JOIN (SELECT c_id, sum(amount) t FROM f_web GROUP BY c_id) b USING (c_id)
q15 | anti join: products never sold on the web | SELECT count(*) FROM d_product p WHERE NOT EXISTS (SELECT 1 FROM f_web w WHERE w.p_id = p.p_id)
q16 | top customers with their e-mail | SELECT c_email, t FROM (SELECT c_id, sum(amount) t FROM f_sales GROUP BY c_id) s JOIN d_customer USING (c_id) ORDER BY t DESC, c_id LIMIT 100
q17 | UNION ALL ... ORDER BY of two facts' customers | SELECT c_id FROM f_sales WHERE d_id < 1000 UNION ALL SELECT c_id FROM f_web WHERE d_id < 1000 ORDER BY c_id LIMIT 100000
q18 | returns x sales on the sale id | SELECT s_region, sum(r.amount) FROM f_returns r JOIN f_sales s USING (sale_id) JOIN d_store USING (s_id) GROUP BY s_region
q19 | distinct customers per month | SELECT d_year, d_month, count(DISTINCT c_id) FROM f_sales JOIN d_date USING (d_id) GROUP BY 1, 2
q20 | customers spending more on the web than in stores | SELECT count(*) FROM (SELECT c_id, sum(amount) t FROM f_sales GROUP BY c_id) a JOIN (SELECT c_id, sum(amount) t FROM f_web GROUP BY c_id) b USING (c_id) WHERE b.t > a.t
q21 | text and int key join: brands of web sales | SELECT p.p_brand, count(*) FROM f_web w JOIN d_product p USING (p_id) JOIN d_product p2 ON p2.p_brand = p.p_brand AND p2.p_id = p.p_id GROUP BY 1
q22 | semi join with a filter on both sides | SELECT count(*) FROM f_web w WHERE w.amount > 100 AND EXISTS (SELECT 1 FROM f_sales s WHERE s.c_id = w.c_id AND s.amount > w.amount * 7)
q23 | INTERSECT of customers over a date range, counted | SELECT count(*) FROM (SELECT c_id FROM f_sales WHERE d_id BETWEEN 100 AND 1200 INTERSECT SELECT c_id FROM f_web WHERE d_id BETWEEN 100 AND 1200) s
q24 | outlets' customers who also bought on the web, by age band | SELECT c_age / 10, count(*) FROM d_customer c WHERE c_id IN (SELECT c_id FROM f_sales JOIN d_store USING (s_id) WHERE s_outlet) AND c_id IN (SELECT c_id FROM f_web) GROUP BY 1
