// Every visitor write operation.
export { postComment } from "./post-comment.ts";
export { editComment } from "./edit-comment.ts";
export { deleteComment } from "./delete-comment.ts";
export { react } from "./react.ts";
export { unreact } from "./unreact.ts";
export { createPoll } from "./create-poll.ts";
export { vote } from "./vote.ts";
export { postLocation } from "./post-location.ts";
export { uploadMedia } from "./upload-media.ts";
export { uploadAvatar } from "./upload-avatar.ts";
export { deleteAvatar } from "./delete-avatar.ts";
