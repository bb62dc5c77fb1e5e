// pg.hpp — a minimal RAII wrapper over libpq for the SQL benchmark (mp_bench):
// one connection, exec() returning all rows as strings plus the error message,
// SQLSTATE and the client-side wall time of the statement.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpbench {

struct QResult {
    bool ok = false;
    std::string error;     // primary message (first line), empty when ok
    std::string sqlstate;  // e.g. 57014 for a statement_timeout cancel
    std::vector<std::vector<std::string>> rows;
    double ms = 0;  // wall time of the whole round trip, client side

    const std::string& at(size_t r, size_t c) const {
        static const std::string empty;
        if (r >= rows.size() || c >= rows[r].size()) return empty;
        return rows[r][c];
    }
};

class Conn {
public:
    explicit Conn(const std::string& conninfo) {
        c_ = PQconnectdb(conninfo.c_str());
        if (PQstatus(c_) != CONNECTION_OK) {
            std::string msg = PQerrorMessage(c_);
            PQfinish(c_);
            c_ = nullptr;
            throw std::runtime_error("connection failed: " + msg);
        }
        PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
    }
    ~Conn() {
        if (c_) PQfinish(c_);
    }
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;

    // Runs one or more statements; the result is that of the last one.
    QResult exec(const std::string& sql) {
        QResult r;
        auto t0 = std::chrono::steady_clock::now();
        PGresult* res = PQexec(c_, sql.c_str());
        auto t1 = std::chrono::steady_clock::now();
        r.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
            r.ok = true;
            int nr = PQntuples(res), nc = PQnfields(res);
            r.rows.resize(nr);
            for (int i = 0; i < nr; ++i) {
                r.rows[i].reserve(nc);
                for (int j = 0; j < nc; ++j)
                    r.rows[i].emplace_back(PQgetisnull(res, i, j) ? "" : PQgetvalue(res, i, j));
            }
        } else {
            const char* m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
            r.error = m ? m : PQerrorMessage(c_);
            while (!r.error.empty() && (r.error.back() == '\n' || r.error.back() == ' '))
                r.error.pop_back();
            const char* s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
            r.sqlstate = s ? s : "";
        }
        if (res) PQclear(res);
        return r;
    }

    // A cancel handle for this connection (PQcancel on it is safe from another thread);
    // free it with PQfreeCancel.
    PGcancel* cancel_handle() { return PQgetCancel(c_); }

    // exec() that throws on error, for set-up statements.
    QResult must(const std::string& sql) {
        QResult r = exec(sql);
        if (!r.ok) throw std::runtime_error(r.error + "\n  in: " + sql.substr(0, 300));
        return r;
    }

private:
    PGconn* c_ = nullptr;
};

}  // namespace mpbench
