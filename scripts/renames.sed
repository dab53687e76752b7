# Internal names renamed to end in _ (issue 26 item 4), for RENAMES= of
# scripts/same_preprocessed.sh and scripts/same_objects.sh: applied to the
# older tree's text, it makes a tree before the renames compare equal to one
# after. sed -E; \b is GNU sed's word boundary.
s/\b(tdpLaunchCheck|tdpLaunchTpbCheck|tdpLaunchLanesCheck|tdpProfileStart|tdpProfileStop|tdpNumBlocks|tdpStreamNative)\b/\1_/g
s/\b(tdpSetConstant|tdpCopySites|tdpCopyMasked|tdpCopy3D|tdpConvert|tdpPackBox|tdpScanType|tdpCopyAsync)\b/\1_/g
