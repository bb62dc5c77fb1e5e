// pipeline.cpp — drives mergepath::SqlSetOp for one execution of a node (see
// pipeline.h): chunks of the main stream go to a SqlSetOp<K>, chunks of null-layout
// keys to a SqlSetOp<Key128> made on first use; finish() runs both (sort: runs shipped
// while reading on the GPU, merged with Merge Path; then unique + Balanced Path).
// rebind() moves them to another context after an out-of-memory (a stream that already
// finished stays where its results are): the chunks they read in place are never
// changed, so every key is still there.
#include "pipeline.h"

#include <memory>

int64_t mp_live_pipelines = 0;

namespace {

using mergepath::Key128;

// Host spans of whole keys as views of keys.
template <class K>
std::vector<mergepath::View<K>> views_of(const std::vector<mergepath::HostSpan>& spans) {
    std::vector<mergepath::View<K>> views;
    for (const mergepath::HostSpan& s : spans) views.emplace_back(static_cast<K*>(s.data), s.bytes / sizeof(K));
    return views;
}
using mergepath::SetOp;
using mergepath::SqlSetOp;

template <class K>
class MpKeyPipeline final : public MpSetOpPipeline {
public:
    MpKeyPipeline(mergepath::Context* ctx, SetOp op, bool all, mergepath::SetOpShape shape)
        : MpSetOpPipeline(ctx), op_(op), all_(all) {
        main_.reset(new SqlSetOp<K>(*ctx, op_, all_, shape));
        ++mp_live_pipelines;
    }
    ~MpKeyPipeline() override { --mp_live_pipelines; }

    void add_chunk(MpKeyStream stream, mergepath::Side side, const void* keys, size_t n, bool ascending,
                   const uint64_t*) override {
        if (stream == MpKeyStream::Main) return main_->add_chunk(side, static_cast<const K*>(keys), n, ascending);
        if (!nulls_) nulls_.reset(new SqlSetOp<Key128>(*ctx_, op_, all_, false));
        nulls_->add_chunk(side, static_cast<const Key128*>(keys), n, ascending);
    }

    // A stream that finished keeps its results on its context; after an out-of-memory
    // in the other one, only that one moves (rebind) and finishes again.
    void finish() override {
        if (!main_done_) main_->finish();
        main_done_ = true;
        if (nulls_ && !nulls_done_) nulls_->finish();
        nulls_done_ = true;
    }

    void rebind(mergepath::Context* ctx) override {
        if (!main_done_) main_->rebind(*ctx);
        if (nulls_ && !nulls_done_) nulls_->rebind(*ctx);
        ctx_ = ctx;
    }

    mergepath::PipelineTimings timings() const override {
        mergepath::PipelineTimings t = main_->timings();
        if (!nulls_) return t;
        mergepath::PipelineTimings n = nulls_->timings();
        t.transfer_ms += n.transfer_ms;
        t.sort_ms += n.sort_ms;
        t.kernel_ms += n.kernel_ms;
        t.runs += n.runs;
        t.ship_ms += n.ship_ms;
        return t;
    }

    size_t result_count(MpKeyStream stream) const override {
        if (stream == MpKeyStream::Main) return main_->result_count();
        return nulls_ ? nulls_->result_count() : 0;
    }

    const void* host_result_keys(MpKeyStream stream) const override {
        if (stream == MpKeyStream::Main) return main_->host_result_keys();
        return nulls_ ? nulls_->host_result_keys() : nullptr;
    }

    void download_result_keys(MpKeyStream stream, size_t first, const std::vector<mergepath::HostSpan>& into) override {
        if (stream == MpKeyStream::Main) return main_->download_result_keys(first, views_of<K>(into));
        if (nulls_) nulls_->download_result_keys(first, views_of<Key128>(into));
    }

    const SqlSetOp<K>& main() const { return *main_; }

private:
    SetOp op_;
    bool all_;
    bool main_done_ = false, nulls_done_ = false;
    std::unique_ptr<SqlSetOp<K>> main_;
    std::unique_ptr<SqlSetOp<Key128>> nulls_;
};

}  // namespace

template <class K>
MpResults<K> mp_results(MpPipeline* pipeline) {
    const auto& sql = static_cast<MpKeyPipeline<K>*>(pipeline)->main();
    MpResults<K> r{};
    r.result_positions = sql.result_positions().data();
    r.position_count = sql.result_positions().size();
    const mergepath::Side sides[2] = {mergepath::Side::A, mergepath::Side::B};
    for (int s = 0; s < 2; ++s) {
        r.sorted_keys[s] = sql.sorted_keys(sides[s]).data();
        r.sorted_rows[s] = sql.sorted_rows(sides[s]).data();
        r.side_count[s] = sql.sorted_keys(sides[s]).size();
    }
    return r;
}

template MpResults<uint32_t> mp_results<uint32_t>(MpPipeline*);
template MpResults<uint64_t> mp_results<uint64_t>(MpPipeline*);
template MpResults<Key128> mp_results<Key128>(MpPipeline*);

MpSetOpPipeline* mp_setop_pipeline_new(int key_bits, mergepath::Context* ctx, mergepath::SetOp op, bool all,
                                       mergepath::SetOpShape shape) {
    switch (key_bits) {
        case 32: return new MpKeyPipeline<uint32_t>(ctx, op, all, shape);
        case 64: return new MpKeyPipeline<uint64_t>(ctx, op, all, shape);
        case 128: return new MpKeyPipeline<Key128>(ctx, op, all, shape);
        default: throw mergepath::Error("pg_mergepath: unsupported key width");
    }
}
