/**
 * The Temporal workflow bundle's entry: every definition turned into a workflow function,
 * exported under its Temporal type name `<type>Workflow` (Temporal finds a workflow by its
 * export's name, so the list is written out). A test (test/architecture/) checks it against
 * the module list's registrations, both ways: a workflow a module registers and this file
 * does not export would never run on Temporal.
 */
import { temporalWorkflow } from './temporal.js';
import { verificationWorkflow as verification } from './verifications/workflow.js';
import { mailDeliveryWorkflow as mailDelivery } from './mail/workflow.js';
import { uploadExpiryWorkflow as uploadExpiry } from './uploads/workflow.js';
import { shareMailWorkflow as shareMail } from './sharing/workflow.js';
import { invitationMailWorkflow as invitationMail } from './accounts/invitation-workflow.js';
import { meteringReleaseWorkflow as meteringRelease } from './usage/release-workflow.js';
import { psdExportWorkflow as psdExport } from './psd-export/workflow.js';
import { psdReservationReleaseWorkflow as psdReservationRelease } from './psd-export/reservation-release-workflow.js';
import { psdExportDeletionWorkflow as psdExportDeletion } from './psd-export/deletion-workflow.js';
import { requestExpiryWorkflow as requestExpiry } from './requests/workflow.js';
import { submissionReleaseWorkflow as requestSubmissionRelease } from './requests/abandoned-workflow.js';
import { submissionMailWorkflow as requestSubmissionMail } from './requests/submission-mail-workflow.js';
import { anchorBatchWorkflow as anchorBatch } from './anchors/workflow.js';
import { rawDiscardWorkflow as rawDiscard } from './verifications/raw-discard-workflow.js';
import { claimWindowWorkflow as claimWindow } from './verifications/claim-window-workflow.js';

export const verificationWorkflow = temporalWorkflow(verification);
export const mailDeliveryWorkflow = temporalWorkflow(mailDelivery);
export const uploadExpiryWorkflow = temporalWorkflow(uploadExpiry);
export const shareMailWorkflow = temporalWorkflow(shareMail);
export const invitationMailWorkflow = temporalWorkflow(invitationMail);
export const meteringReleaseWorkflow = temporalWorkflow(meteringRelease);
export const psdExportWorkflow = temporalWorkflow(psdExport);
export const psdReservationReleaseWorkflow = temporalWorkflow(psdReservationRelease);
export const psdExportDeletionWorkflow = temporalWorkflow(psdExportDeletion);
export const requestExpiryWorkflow = temporalWorkflow(requestExpiry);
export const requestSubmissionReleaseWorkflow = temporalWorkflow(requestSubmissionRelease);
export const requestSubmissionMailWorkflow = temporalWorkflow(requestSubmissionMail);
export const rawDiscardWorkflow = temporalWorkflow(rawDiscard);
export const claimWindowWorkflow = temporalWorkflow(claimWindow);
export const anchorBatchWorkflow = temporalWorkflow(anchorBatch);
