#include "analysis/planning/CheckpointPlan.h"

#include "analysis/discovery/CheckpointSteps.h"

namespace rankscope {

CheckpointPlan CheckpointPlan::make(const CheckpointFile &file, const CheckpointReader &reader, const TensorNameRules &rules)
{
    CheckpointPlan plan;
    std::tie(plan.step, plan.stepSource) = CheckpointSteps::stepOf(file, &reader);

    // The user's rules file first, then what the checkpoint says of itself, then its sidecars.
    if (!rules.userConfig().isEmpty())
        plan.config.addSource(rules.userConfig(), QStringLiteral("the rules file %1").arg(rules.userRulesPath()));
    plan.config.addSource(reader.modelConfig(), QStringLiteral("the checkpoint's own hyper-parameters"));
    plan.config.addSource(file.sidecarConfig, file.configPath.isEmpty() ? QStringLiteral("a sidecar file") : file.configPath);

    QList<NamedShape> shapes;
    for (const TensorInfo &t : reader.tensors())
        shapes.append({t.name, t.shape, t.dtype});
    plan.layout = CheckpointLayout::plan(shapes, plan.config, rules,
                                         file.adapterConfigPath.isEmpty() ? AdapterConfig() : AdapterConfig::fromJson(file.adapterConfig, file.adapterConfigPath));
    return plan;
}

} // namespace rankscope
