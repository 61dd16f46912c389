// Online fair sharing under placement constraints on heterogeneous nodes, for the "share"
// engine (schedlab/share.h). On job arrival and when a task frees resources, the engine serves
// the eligible user with the lowest share; the schedulers differ in the share function
// [Zhou 2019, §5.3.2; ch. 5]:
//   eunomia — progress share  S_u = sum_m T_{u,m} P_{u,m} / (W_u sum_m H_{u,m} P_{u,m})
//             (Eq. 5.1), online greedy [Zhou 2019, §5.3.1, Eq. 5.1; §5.3.2]
//   tsf     — task share n_u / (W_u h_u), h_u = sum_m H_{u,m}  [Zhou 2019, ch. 5, TSF]
//   choosy  — constrained max-min fairness by greedy slot counting: fewest weighted running
//             tasks [Zhou 2019, ch. 5, Choosy]; counting dominant shares instead is selectable
//             (the dissertation does not say how Choosy was adapted to multi-resource tasks)
//   drf     — dominant share max_r alloc_r / capacity_r over the pooled cluster, first-fit
//             placement [Zhou 2019, ch. 5, DRF]
//   drfh    — global dominant share max_r sum_m alloc_{m,r} / sum_m A_{m,r}, with the DRFH
//             paper's Best-Fit server choice [Zhou 2019, ch. 5, DRFH]. On a node-driven refill the
//             share functions of drf and drfh coincide; they differ where a job arrival leaves
//             a choice of servers.
// Where a job arrival leaves several free nodes, eunomia (performance-aware) places on the
// fastest eligible node and the others (not performance-aware, Table 2.3) on the first fitting
// one; drfh uses Best-Fit. The dissertation leaves this open [Zhou 2019]; `placement`
// selects the rule. With equal performance everywhere "fastest" is "first_fit".
// Every scheduler honours placement constraints (the engine never launches on an ineligible
// node); only choosy, tsf and eunomia account for them in their design. Weights default to the
// workload's job weights (the user's first job) and may be overridden per user.
#include <memory>

#include "schedlab/share.h"

namespace schedlab::share {
namespace {

Placement placement_of(const Params& p) {
  const std::string& s = p.choice("placement");
  if (s == "best_fit") return Placement::BestFit;
  if (s == "fastest") return Placement::Fastest;
  return Placement::FirstFit;
}

class SharePolicy : public Policy {
 public:
  enum Kind { kProgress, kTask, kSlots, kDominant };
  SharePolicy(Kind kind, const Params& p)
      : kind_(kind), placement_(placement_of(p)), random_(p.choice("tie_break") == "random") {}
  double share(const Sim& sim, int32_t u) const override {
    const UserState& s = sim.user(u);
    switch (kind_) {
      case kProgress: return s.progress_share;
      case kTask: return s.task_share;
      case kSlots: return s.running / s.weight;
      case kDominant: return sim.dominant_share(u);
    }
    return 0;
  }
  Placement placement() const override { return placement_; }
  bool random_ties() const override { return random_; }

 private:
  Kind kind_;
  Placement placement_;
  bool random_;
};

std::vector<ParamSpec> common(const char* default_placement) {
  return {
      ParamSpec::text("weights", "",
                      "per-user weights W_u as {user: weight} (or 'user:weight,...'); users not listed take "
                      "the weight of their first job in the workload (default 1)"),
      ParamSpec::choice("tie_break", "user_id", {"user_id", "random"},
                        "equal shares: serve the lowest user id (default; the dissertation breaks ties "
                        "arbitrarily [Zhou 2019]) or a seeded random user"),
      ParamSpec::choice("placement", default_placement, {"first_fit", "best_fit", "fastest"},
                        "when a job arrival leaves several free nodes, which one the chosen user's task goes "
                        "to: lowest node id, the node left with the least normalized free <vcores, memory> "
                        "(DRFH's Best-Fit), or the highest-performance node"),
  };
}

template <SharePolicy::Kind K>
std::unique_ptr<Policy> make(const Params& p) {
  return std::make_unique<SharePolicy>(K, p);
}

std::unique_ptr<Policy> make_choosy(const Params& p) {
  return std::make_unique<SharePolicy>(p.choice("count") == "dominant_share" ? SharePolicy::kDominant
                                                                              : SharePolicy::kSlots,
                                       p);
}

}  // namespace

void register_fairness_schedulers() {
  {
    SchedulerInfo s;
    s.name = "eunomia";
    s.citation = "Eunomia [Zhou 2019, §5.3.1, Eq. 5.1; §5.3.2]";
    s.summary = "online greedy progress-share fairness: lowest sum T*P / (W * sum H*P) first";
    s.params = common("fastest");
    register_policy(s, &make<SharePolicy::kProgress>);
  }
  {
    SchedulerInfo s;
    s.name = "tsf";
    s.citation = "Task Share Fairness (Wang et al.), as summarized in [Zhou 2019, ch. 5]";
    s.summary = "online task-share fairness: lowest n_u / (W_u * h_u) first, constraint-aware, not performance-aware";
    s.params = common("first_fit");
    register_policy(s, &make<SharePolicy::kTask>);
  }
  {
    SchedulerInfo s;
    s.name = "choosy";
    s.citation = "Choosy (Ghodsi et al., EuroSys'13), constrained max-min fairness, greedy [Zhou 2019, ch. 5]";
    s.summary = "online CMMF: the eligible user with the fewest weighted running tasks first";
    s.params = common("first_fit");
    s.params.push_back(ParamSpec::choice(
        "count", "tasks", {"tasks", "dominant_share"},
        "what Choosy's max-min equalizes for multi-resource tasks: running tasks (slots; default "
        "[Zhou 2019]) or the dominant share"));
    register_policy(s, &make_choosy);
  }
  {
    SchedulerInfo s;
    s.name = "drf";
    s.citation = "Dominant Resource Fairness (Ghodsi et al., NSDI'11) [Zhou 2019, ch. 5]";
    s.summary = "lowest dominant share (allocation / pooled cluster capacity) first; first-fit placement";
    s.params = common("first_fit");
    register_policy(s, &make<SharePolicy::kDominant>);
  }
  {
    SchedulerInfo s;
    s.name = "drfh";
    s.citation = "DRFH (Wang, Li, Liang; heterogeneous servers) [Zhou 2019, ch. 5]";
    s.summary = "lowest global dominant share first; Best-Fit server choice";
    s.params = common("best_fit");
    register_policy(s, &make<SharePolicy::kDominant>);
  }
}

}  // namespace schedlab::share
