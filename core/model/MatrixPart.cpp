#include "model/MatrixPart.h"

namespace rankscope {

MatrixPart MatrixPart::whole(const MatrixIdentity &id, const QString &label, qint64 rows)
{
    MatrixPart part;
    part.id = id;
    part.label = label;
    part.groupSize = rows;
    part.count = rows;
    return part;
}

bool MatrixPart::fits(qint64 length) const
{
    return groups > 0 && groupSize > 0 && count > 0 && offset >= 0 && offset + count <= groupSize &&
           groups <= length / groupSize && groups * groupSize == length;
}

} // namespace rankscope
